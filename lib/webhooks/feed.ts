import { base32crockford } from "@scure/base";
import { and, asc, eq, gt, inArray, lte, type SQL } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { events } from "@/db/schema";
import { config } from "@/lib/config";
import type { Verb } from "@/lib/context";
import { validationFailed } from "@/lib/errors";
import { isEventType } from "@/lib/events/catalogue";
import { WebhookEvent, type WebhookEventBody } from "@/lib/events-api/payloads";
import { ID_PREFIXES, isId } from "@/lib/ids";
import { webhookPayload } from "./payload";
import { realNow } from "@/lib/time";

/**
 * The event feed behind `npm run listen`: a long poll over the account's events in id order (ids
 * are time-ordered), so a CLI on a developer's machine pulls new events from a deployment that
 * cannot reach it.
 *
 * A transaction commits a little after it made its event id, so an event may become visible after
 * a later one was already served. Each answer therefore also repeats the events of the
 * LOOKBACK_MS before the cursor; the client skips ids it has forwarded (and receivers deduplicate
 * by `webhook-id` anyway). An event that commits more than LOOKBACK_MS after a later one was
 * served would be missed; emitting transactions are short (milliseconds), so that margin is wide.
 */
export const LOOKBACK_MS = 5_000;
const POLL_INTERVAL_MS = 250;
export const FEED_LIMIT = 100;
export const MAX_WAIT_SECONDS = 25;

const seconds = z
  .string()
  .regex(/^\d+$/, `wait must be an integer from 0 to ${MAX_WAIT_SECONDS}.`)
  .transform(Number)
  .pipe(z.number().max(MAX_WAIT_SECONDS, `wait must be an integer from 0 to ${MAX_WAIT_SECONDS}.`))
  .optional()
  .transform((value) => value ?? MAX_WAIT_SECONDS);

export const EventFeedQuery = z.strictObject({
  after: z
    .string()
    .max(100)
    .optional()
    .meta({ description: "The cursor: `next_cursor` of the previous answer. Without it the feed starts now." }),
  types: z
    .string()
    .max(4000)
    .optional()
    .meta({ description: "Comma-separated event types to receive (default: every type).", example: "customer.created,invoice.paid" }),
  wait: seconds.meta({ description: `Seconds to wait for a new event before answering empty, 0 to ${MAX_WAIT_SECONDS} (default ${MAX_WAIT_SECONDS}).` }),
});

export const EventFeed = z
  .object({
    object: z.literal("event_feed"),
    items: z.array(WebhookEvent).meta({
      description: `Oldest first: new events, preceded by those of the ${LOOKBACK_MS / 1000} s before the cursor (skip ids you already have).`,
    }),
    next_cursor: z.string().meta({ description: "Pass as `after` on the next call (store it to resume later)." }),
  })
  .meta({ id: "EventFeed" });

type FeedInput = z.output<typeof EventFeedQuery>;

const TIME_BYTES = 6;
const SUFFIX_BYTES = 18;

/** The smallest event id of a millisecond: a cursor that means "from that instant on". */
function idFloorAt(ms: number): string {
  const bytes = new Uint8Array(SUFFIX_BYTES);
  new DataView(bytes.buffer).setUint16(0, Math.floor(ms / 2 ** 32));
  new DataView(bytes.buffer).setUint32(2, ms % 2 ** 32);
  return `${ID_PREFIXES.event}${config().environment}_${base32crockford.encode(bytes).toLowerCase()}`;
}

/** The millisecond an event id (or cursor) was made at. */
function idTime(id: string): number {
  const bytes = base32crockford.decode(id.slice(id.lastIndexOf("_") + 1).toUpperCase());
  const view = new DataView(bytes.buffer, bytes.byteOffset, TIME_BYTES);
  return view.getUint16(0) * 2 ** 32 + view.getUint32(2);
}

function parseTypes(raw: string | undefined): string[] | null {
  if (raw === undefined || raw.trim() === "" || raw.trim() === "*") return null;
  const types = raw.split(",").map((type) => type.trim()).filter(Boolean);
  const unknown = types.filter((type) => !isEventType(type));
  if (unknown.length > 0) {
    throw validationFailed([{ field: "types", message: `Unknown event types: ${unknown.join(", ")}.` }]);
  }
  return types;
}

function parseCursor(raw: string | undefined): string {
  if (raw === undefined) return idFloorAt(realNow().getTime());
  if (!isId("event", raw)) throw validationFailed([{ field: "after", message: "Must be a cursor (an event id) from a previous answer." }]);
  return raw;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits up to `wait` seconds for an event after the cursor, then answers the lookback window and
 * what is new (at most FEED_LIMIT new ones), oldest first, as webhook payloads.
 */
export async function readEventFeed({
  ctx,
  input,
}: Verb<FeedInput>): Promise<{ items: WebhookEventBody[]; nextCursor: string }> {
  const cursor = parseCursor(input.after);
  const types = parseTypes(input.types);
  // A fresh start (no cursor) serves only what comes next, not the last seconds.
  const lookbackFloor = input.after === undefined ? cursor : idFloorAt(Math.max(0, idTime(cursor) - LOOKBACK_MS));
  const ofAccount: SQL[] = [eq(events.accountId, ctx.accountId)];
  if (types) ofAccount.push(inArray(events.type, types));
  const db = await getDb();
  const lookback = () =>
    db
      .select()
      .from(events)
      .where(and(...ofAccount, gt(events.id, lookbackFloor), lte(events.id, cursor)))
      .orderBy(asc(events.id))
      .limit(FEED_LIMIT * 10);
  const after = () =>
    db
      .select()
      .from(events)
      .where(and(...ofAccount, gt(events.id, cursor)))
      .orderBy(asc(events.id))
      .limit(FEED_LIMIT);
  const seenAtStart = new Set((await lookback()).map((row) => row.id));
  const deadline = realNow().getTime() + input.wait * 1000;
  for (;;) {
    const [earlier, later] = await Promise.all([lookback(), after()]);
    // Something the client cannot have had: after the cursor, or a late commit in the lookback.
    const fresh = later.length > 0 || earlier.some((row) => !seenAtStart.has(row.id));
    if (fresh || realNow().getTime() >= deadline) {
      return {
        items: [...earlier, ...later].map((row) => webhookPayload(row, ctx.livemode)),
        nextCursor: later.at(-1)?.id ?? cursor,
      };
    }
    await sleep(POLL_INTERVAL_MS);
  }
}
