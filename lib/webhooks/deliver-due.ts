import { log, safeError } from "@/lib/log";
import { attemptDelivery, type AttemptOutcome } from "./attempt";

/** Attempts at once in one invocation: enough to overlap slow endpoints, few pooled connections. */
const CONCURRENCY = 8;

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
        log().error({ delivery_id: id, err: safeError(error) }, "webhook attempt failed; it stays due");
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return pass;
}

export function emptyPass(): DuePass {
  return { attempted: 0, delivered: 0, retrying: 0, failed: 0, skipped: 0 };
}
