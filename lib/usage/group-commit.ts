import { config } from "@/lib/config";
import type { ServiceContext } from "@/lib/context";
import { log, safeError } from "@/lib/log";
import { ingestUsageEvents } from "./ingest";
import type { UsageEventResultObject } from "./schema";

/*
 * Group commit of one-event ingests (docs/usage-billing.md, "Group commit"). Concurrent
 * `POST /api/usage-events` of one account in this process share one ingest: its lookup and its one
 * insert statement (which commits by itself), as PostgreSQL shares one WAL flush among the commits
 * that wait for it. A group starts at once when nothing of the account is being written; what
 * arrives while a group is written waits for it and goes next, all together (up to the group's
 * size), after the configured wait if any. So an idle service adds no latency, and a busy one makes
 * one statement of many requests.
 *
 * Each request answers only with its own item's outcome, after the statement that holds it has
 * committed: an `accepted` is as durable as before, and a crash before the commit acknowledges
 * nothing. Two requests with the same identifier never share a group (the second goes in the next
 * one, after the first has committed), so each answers as it would alone: `duplicate` or a
 * conflict. A group whose ingest fails is tried again one request at a time, so one request's
 * failure fails no neighbour.
 */

type Waiting = { ctx: ServiceContext; item: unknown; identifier: unknown; resolve: (result: UsageEventResultObject) => void; reject: (error: unknown) => void };
type Lane = { queue: Waiting[]; writing: boolean };

const LANES = Symbol.for("billing-service.usage-group-commit");
/** Per account, on globalThis: Next.js may bundle this module more than once into one process. */
const lanes: Map<string, Lane> = ((globalThis as typeof globalThis & { [LANES]?: Map<string, Lane> })[LANES] ??= new Map());

/** One event's ingest, grouped with its account's concurrent ones unless group commit is off. */
export function ingestOneUsageEvent(ctx: ServiceContext, item: unknown): Promise<UsageEventResultObject> {
  const { maxEvents } = config().usageGroupCommit;
  if (maxEvents <= 1) return ingestUsageEvents(ctx, [item]).then(([result]) => result!);
  return new Promise((resolve, reject) => {
    const key = `${ctx.livemode ? "live" : "test"}:${ctx.accountId}`;
    let lane = lanes.get(key);
    if (!lane) lanes.set(key, (lane = { queue: [], writing: false }));
    lane.queue.push({ ctx, item, identifier: (item as { identifier?: unknown } | null)?.identifier, resolve, reject });
    if (!lane.writing) void drain(key, lane);
  });
}

async function drain(key: string, lane: Lane): Promise<void> {
  lane.writing = true;
  try {
    const { maxEvents, waitMs } = config().usageGroupCommit;
    while (lane.queue.length > 0) {
      if (waitMs > 0 && lane.queue.length < maxEvents) await new Promise((resolve) => setTimeout(resolve, waitMs));
      await write(takeGroup(lane, maxEvents));
    }
  } finally {
    lane.writing = false;
    if (lane.queue.length === 0) lanes.delete(key);
    else void drain(key, lane);
  }
}

/** The next group: in arrival order, at most `size`, each identifier once (a repeat waits for the next group). */
function takeGroup(lane: Lane, size: number): Waiting[] {
  const group: Waiting[] = [];
  const rest: Waiting[] = [];
  const identifiers = new Set<unknown>();
  for (const waiting of lane.queue) {
    if (group.length >= size || identifiers.has(waiting.identifier)) rest.push(waiting);
    else {
      group.push(waiting);
      identifiers.add(waiting.identifier);
    }
  }
  lane.queue = rest;
  return group;
}

async function write(group: Waiting[]): Promise<void> {
  if (group.length === 1) return settle(group[0]!);
  const ctx = group.at(-1)!.ctx;
  let results: UsageEventResultObject[];
  try {
    // The clock of the last to arrive: no event of the group is judged before it was received.
    results = await ingestUsageEvents(ctx, group.map((waiting) => waiting.item));
  } catch (error) {
    // The group's one statement did not commit: each request again, alone, with its own outcome.
    log().warn({ account: ctx.accountId, events: group.length, err: safeError(error) }, "usage group commit failed; its events are written one by one");
    await Promise.all(group.map(settle));
    return;
  }
  log().debug({ account: ctx.accountId, events: group.length }, "usage group committed");
  group.forEach((waiting, index) => waiting.resolve(results[index]!));
}

async function settle(waiting: Waiting): Promise<void> {
  try {
    const [result] = await ingestUsageEvents(waiting.ctx, [waiting.item]);
    waiting.resolve(result!);
  } catch (error) {
    waiting.reject(error);
  }
}
