import { and, asc, isNotNull, lte, notInArray } from "drizzle-orm";
import { getDb } from "@/db/client";
import { eventDeliveries } from "@/db/schema";
import { attemptDelivery, type AttemptOutcome } from "./attempt";

/** Attempts at once in one invocation: enough to overlap slow endpoints, few pooled connections. */
const CONCURRENCY = 8;
const BATCH = 50;

export type DuePass = { attempted: number; delivered: number; retrying: number; failed: number; skipped: number };

function tally(pass: DuePass, outcome: AttemptOutcome): void {
  if (outcome.result === "skipped") pass.skipped++;
  else {
    pass.attempted++;
    if (outcome.result === "delivered") pass.delivered++;
    else if (outcome.result === "retry") pass.retrying++;
    else pass.failed++;
  }
}

/** Attempts each delivery that is due, a few at a time; errors are logged, the rows stay due. */
export async function attemptDue(deliveryIds: readonly string[], pass: DuePass = emptyPass()): Promise<DuePass> {
  const queue = [...deliveryIds];
  const worker = async () => {
    for (let id = queue.shift(); id !== undefined; id = queue.shift()) {
      try {
        tally(pass, await attemptDelivery(id, { mode: "due" }));
      } catch (error) {
        console.error(`Webhook attempt of ${id} failed; it stays due.`, error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return pass;
}

function emptyPass(): DuePass {
  return { attempted: 0, delivered: 0, retrying: 0, failed: 0, skipped: 0 };
}

/**
 * One bounded pass over the due deliveries (the serverless cron): every delivery due now gets at
 * most one attempt in this pass, oldest first, and no new attempt starts after `deadline` (one
 * in flight still runs to its own deadline, WEBHOOK_TIMEOUT_MS). What is left waits for the next
 * pass. Passes may overlap: each attempt claims its row (attempt.ts), so none runs twice.
 */
export async function deliverDueOnce(options: { deadline: number }): Promise<DuePass> {
  const pass = emptyPass();
  const seen: string[] = [];
  const db = await getDb();
  while (Date.now() < options.deadline) {
    const due = await db
      .select({ id: eventDeliveries.id })
      .from(eventDeliveries)
      .where(
        and(
          isNotNull(eventDeliveries.dueAt),
          lte(eventDeliveries.dueAt, new Date()),
          seen.length > 0 ? notInArray(eventDeliveries.id, seen) : undefined,
        ),
      )
      .orderBy(asc(eventDeliveries.dueAt))
      .limit(BATCH);
    if (due.length === 0) break;
    const ids = due.map((row) => row.id);
    seen.push(...ids);
    await attemptDue(ids, pass);
  }
  return pass;
}
