/**
 * `npm run --silent listen -- --base-url <API base URL> --token <st_…> --forward-to <url> [--events <types>]`
 *
 * Pulls the token's account's new events from the API (a long poll on GET /events/feed, so it
 * works against a deployment that cannot reach this machine) and POSTs each to a local URL,
 * signed with a listen-session secret and with exactly the headers of a real delivery. It
 * reconnects after a lost connection and resumes from its cursor; `--cursor` resumes a previous run.
 */
import { randomBytes } from "node:crypto";
import { parseArgs } from "node:util";
import ipaddr from "ipaddr.js";
import { deliveryHeaders } from "@/lib/webhooks/signing";

type Payload = { id: string; type: string; sequence: number };
type Feed = { items: Payload[]; next_cursor: string };

const USAGE =
  "Usage: npm run --silent listen -- --base-url <https://…/api> --token <st_…> --forward-to <url> [--events <type,type>] [--secret <whsec_…>] [--cursor <evt_…>]";

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

async function readFeed(cursor: string | undefined, wait: number): Promise<Feed> {
  const query = new URLSearchParams({ wait: String(wait) });
  if (cursor) query.set("after", cursor);
  if (args.events) query.set("types", args.events);
  const response = await fetch(`${baseUrl}/events/feed?${query}`, {
    headers: { Authorization: `Bearer ${token}`, ...bypassHeader },
    signal: AbortSignal.timeout((wait + 15) * 1000),
  });
  const text = await response.text();
  if (response.status === 401 || response.status === 403 || response.status === 422 || response.status === 400) {
    let detail = text;
    try {
      detail = JSON.parse(text).detail ?? text;
    } catch {
      // not a problem body: show the text
    }
    console.error(`The API refused the request (HTTP ${response.status}): ${detail}`);
    process.exit(1);
  }
  if (!response.ok) throw new Error(`HTTP ${response.status} from ${baseUrl}/events/feed`);
  return JSON.parse(text) as Feed;
}

const time = () => new Date().toISOString().slice(11, 19);

/** One POST, like a delivery's first attempt; the answer is printed, never retried. */
async function forward(payload: Payload): Promise<void> {
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
  try {
    const response = await fetch(forwardTo, { method: "POST", headers, body, signal: AbortSignal.timeout(30_000), redirect: "manual" });
    await response.arrayBuffer();
    outcome = `${response.status} ${response.statusText}`.trim();
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    outcome = `failed: ${cause ?? (error as Error).message}`;
  }
  const ms = Math.round(performance.now() - started);
  console.log(`${time()}  ${payload.type}  ${payload.id}  seq ${payload.sequence}  → ${outcome} (${ms} ms)`);
}

const seen = new Set<string>();
function remember(id: string): void {
  seen.add(id);
  // Only ids of the last seconds come back in a lookback: a bounded memory is enough.
  if (seen.size > 10_000) seen.delete(seen.values().next().value!);
}

async function main(): Promise<void> {
  // A first call checks the token and fixes the starting point: only events from now on.
  let cursor = args.cursor ?? (await readFeed(undefined, 0)).next_cursor;
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
  console.log(`Forwarding ${args.events ?? "all events"} to ${forwardTo.href}`);

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
      await forward(payload);
    }
    cursor = feed.next_cursor;
  }
}

void main().catch((error) => {
  console.error(error);
  process.exit(1);
});
