/**
 * `npm run --silent listen -- --base-url <API base URL> --token <st_…> --forward-to <url> [--events <types>]`
 *
 * Pulls the token's account's new events from the API (a long poll on GET /events/feed, so it
 * works against a deployment that cannot reach this machine) and POSTs each to a local URL,
 * signed with a listen-session secret and with exactly the headers of a real delivery. It
 * reconnects after a lost connection and resumes from its cursor; `--cursor` resumes a previous run.
 *
 * `--trigger <type>` (e.g. invoice.paid) makes one test event of that type, with the samples of
 * the dashboard's "Send test event" (POST /events/test), forwards it as it comes through the feed,
 * and exits: 0 when the URL answered 2xx.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import ipaddr from "ipaddr.js";
import { deliveryHeaders } from "@/lib/webhooks/signing";

type Payload = { id: string; type: string; sequence: number };
type Feed = { items: Payload[]; next_cursor: string };

const USAGE =
  "Usage: npm run --silent listen -- --base-url <https://…/api> --token <st_…> --forward-to <url> [--events <type,type>] [--secret <whsec_…>] [--cursor <evt_…>] [--trigger <event type>]";

function fail(message: string): never {
  console.error(`${message}\n${USAGE}`);
  process.exit(2);
}

const { values: args } = parseArgs({
  options: {
    "base-url": { type: "string" },
    token: { type: "string" },
    "forward-to": { type: "string" },
    events: { type: "string" },
    secret: { type: "string" },
    cursor: { type: "string" },
    trigger: { type: "string" },
    help: { type: "boolean", short: "h" },
  },
});
if (args.help) {
  console.log(USAGE);
  process.exit(0);
}
const baseUrl = (args["base-url"] ?? fail("--base-url is required.")).replace(/\/+$/, "");
const token = args.token ?? fail("--token is required (a secret token, st_…).");
const forwardTo = parseForwardUrl(args["forward-to"] ?? fail("--forward-to is required."));
const secret = args.secret ?? `whsec_${randomBytes(32).toString("base64")}`;
if (!/^whsec_[A-Za-z0-9+/=_-]{16,}$/.test(secret)) fail("--secret must be a whsec_… secret.");
const trigger = args.trigger;
if (trigger !== undefined && !/^[a-z_]+\.[a-z_.]+$/.test(trigger)) fail(`--trigger takes an event type, e.g. invoice.paid (not ${trigger}).`);
// A trigger run waits for its own event only.
const types = trigger ?? args.events;

/** Plain HTTP only to this machine or a private network: anything else must be HTTPS. */
function parseForwardUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    fail(`--forward-to is not a URL: ${raw}`);
  }
  if (url.protocol === "https:") return url;
  if (url.protocol !== "http:") fail("--forward-to must be an http:// or https:// URL.");
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const local =
    host === "localhost" ||
    host.endsWith(".localhost") ||
    (ipaddr.isValid(host) && ["loopback", "private", "uniqueLocal", "linkLocal"].includes(ipaddr.process(host).range()));
  if (!local) fail("Plain HTTP is allowed only for local addresses (localhost, 127.0.0.1, ::1, private networks); use https://.");
  return url;
}

// A Vercel preview behind deployment protection lets automation through with its bypass secret.
const bypassSecret = process.env.VERCEL_AUTOMATION_BYPASS_SECRET;
const bypassHeader: Record<string, string> = bypassSecret ? { "x-vercel-protection-bypass": bypassSecret } : {};

async function readFeed(cursor: string | undefined, wait: number, timeoutMs = (wait + 15) * 1000): Promise<Feed> {
  const query = new URLSearchParams({ wait: String(wait) });
  if (cursor) query.set("after", cursor);
  if (types) query.set("types", types);
  const response = await fetch(`${baseUrl}/events/feed?${query}`, {
    headers: { Authorization: `Bearer ${token}`, ...bypassHeader },
    signal: AbortSignal.timeout(timeoutMs),
  });
  const text = await response.text();
  if (response.status === 401 || response.status === 403 || response.status === 422 || response.status === 400) refused(response.status, text);
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${baseUrl}/events/feed`);
  return JSON.parse(text) as Feed;
}

function refused(status: number, text: string): never {
  let detail = text;
  try {
    detail = JSON.parse(text).detail ?? text;
  } catch {
    // not a problem body: show the text
  }
  console.error(`The API refused the request (HTTP ${status}): ${detail}`);
  process.exit(1);
}

/** The test event of --trigger: the same sample events as the dashboard's "Send test event". */
async function createTestEvent(type: string): Promise<string> {
  const response = await fetch(`${baseUrl}/events/test`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", ...bypassHeader },
    body: JSON.stringify({ type }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  if (response.status !== 201) refused(response.status, text);
  return (JSON.parse(text) as { id: string }).id;
}

const time = () => new Date().toISOString().slice(11, 19);

/** How long the first call may wait for the API: `npm run dev` compiles its route on the first request (minutes on a slow machine). */
const FIRST_CALL_MS = 5 * 60_000;
/** After this long without an answer, the first call says what it waits for. */
const WAIT_NOTICE_MS = 3_000;

/**
 * The first call (it checks the token and fixes the starting point), patient with a server that
 * is still starting (connection refused) or compiling (no answer yet), and saying so.
 */
async function firstFeed(): Promise<Feed> {
  const deadline = Date.now() + FIRST_CALL_MS;
  let noticed = false;
  const notice = () => {
    if (noticed) return;
    noticed = true;
    console.error(`Waiting for the API at ${baseUrl} (a dev server compiles it on its first request: a minute or more on a slow machine)…`);
  };
  const timer = setTimeout(notice, WAIT_NOTICE_MS);
  try {
    for (;;) {
      try {
        return await readFeed(undefined, 0, Math.max(1000, deadline - Date.now()));
      } catch (error) {
        const cause = (error as { cause?: { code?: string } }).cause?.code;
        if (Date.now() >= deadline || (cause !== "ECONNREFUSED" && cause !== "ECONNRESET")) throw error;
        notice();
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  } finally {
    clearTimeout(timer);
  }
}

/** One POST, like a delivery's first attempt; the answer is printed, never retried. True for a 2xx. */
async function forward(payload: Payload): Promise<boolean> {
  const body = Buffer.from(JSON.stringify(payload));
  const headers = deliveryHeaders(
    { current: secret, previous: null },
    {
      body,
      eventId: payload.id,
      eventType: payload.type,
      deliveryId: `ed_listen_${randomBytes(8).toString("hex")}`,
      attempt: 1,
      sentAt: new Date(),
    },
  );
  const started = performance.now();
  let outcome: string;
  let ok = false;
  try {
    const response = await fetch(forwardTo, { method: "POST", headers, body, signal: AbortSignal.timeout(30_000), redirect: "manual" });
    await response.arrayBuffer();
    outcome = `${response.status} ${response.statusText}`.trim();
    ok = response.status >= 200 && response.status < 300;
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    outcome = `failed: ${cause ?? (error as Error).message}`;
  }
  const ms = Math.round(performance.now() - started);
  console.log(`${time()}  ${payload.type}  ${payload.id}  seq ${payload.sequence}  → ${outcome} (${ms} ms)`);
  return ok;
}

const seen = new Set<string>();
function remember(id: string): void {
  seen.add(id);
  // Only ids of the last seconds come back in a lookback: a bounded memory is enough.
  if (seen.size > 10_000) seen.delete(seen.values().next().value!);
}

async function main(): Promise<void> {
  // A first call checks the token and fixes the starting point: only events from now on.
  let cursor = args.cursor ?? (await firstFeed()).next_cursor;
  // A fresh start forwards nothing older than itself (the feed's lookback would repeat some).
  const floor = args.cursor ? "" : cursor;
  let stopping = false;
  process.on("SIGINT", () => {
    if (stopping) process.exit(130);
    stopping = true;
    console.log(`\nStopped. Resume with --cursor ${cursor} (and --secret ${secret}).`);
    process.exit(0);
  });
  console.log(`Ready! Your webhook signing secret is ${secret} (^C to quit)`);
  console.log(`Forwarding ${types ?? "all events"} to ${forwardTo.href}`);
  const triggered = trigger ? await createTestEvent(trigger) : null;
  if (triggered) console.log(`Triggered ${trigger}: test event ${triggered}`);

  let backoffMs = 1000;
  let lost = false;
  for (;;) {
    let feed: Feed;
    try {
      feed = await readFeed(cursor, 25);
    } catch (error) {
      const cause = (error as { cause?: { code?: string } }).cause?.code;
      console.error(`${time()}  Connection to the API lost (${cause ?? (error as Error).message}); retrying in ${backoffMs / 1000} s…`);
      lost = true;
      await new Promise((resolve) => setTimeout(resolve, backoffMs));
      backoffMs = Math.min(backoffMs * 2, 10_000);
      continue;
    }
    if (lost) console.error(`${time()}  Reconnected; resuming after ${cursor}.`);
    lost = false;
    backoffMs = 1000;
    for (const payload of feed.items) {
      if (seen.has(payload.id) || payload.id <= floor) continue;
      remember(payload.id);
      const ok = await forward(payload);
      if (payload.id === triggered) process.exit(ok ? 0 : 1);
    }
    cursor = feed.next_cursor;
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
