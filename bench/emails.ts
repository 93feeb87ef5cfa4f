/**
 * Benchmark: renewal receipts through a real SMTP server (issue #37), on the built app
 * (`npm run build` first).
 *
 * One sandbox account has `--receipts` (default 10,000) monthly subscriptions paid by a sandbox
 * card. A test-clock advance past their period end renews them all: each renewal invoice is paid
 * and its receipt (with its PDF) queued in the payment's transaction. The app (embedded sender,
 * SMTP_URL naming a loopback SMTP server) sends them. Printed: the advance's time, the time until
 * the last receipt reached the server (from the advance's start and from its end, when all are
 * queued), the sending throughput, and the p99 of `GET /api/customers/{id}` idle and while the
 * receipts drain.
 *
 * The floor, measured in the same run on the same server: nodemailer alone (the same pooled
 * transport settings as lib/emails/transport.ts) sending the same number of messages, each a copy
 * of a receipt the app sent (its PDF attached) with a Message-ID of its own. Checked, not timed:
 * every receipt received exactly once.
 *
 *   npx tsx bench/emails.ts [--receipts 10000]        (npm run bench:emails -- …)
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import type { AddressInfo } from "node:net";
import { eq } from "drizzle-orm";
import nodemailer from "nodemailer";
import { SMTPServer, type SMTPServerDataStream } from "smtp-server";
import { closeDb, getDb } from "@/db/client";
import { accounts } from "@/db/schema";
import { issueToken } from "@/lib/auth/tokens";
import { advanceClock, systemContext } from "@/lib/clock/service";
import { createCustomer } from "@/lib/customers/service";
import { createOrganization } from "@/lib/organizations/service";
import { createPrice } from "@/lib/prices/service";
import { createProduct } from "@/lib/products/service";
import { createSubscription } from "@/lib/subscriptions/service";
import { wire } from "@/lib/server/wiring";
import { startApp } from "@/tests/helpers/server";
import { benchDatabase, benchEnvironment, load, log, option } from "./http";
import { pool } from "./pool";

// The clock runs the transitions handed to it at start-up (lib/server/wiring.ts).
wire();
benchEnvironment();

const RECEIPTS = Number(option("receipts", "10000"));
if (!Number.isInteger(RECEIPTS) || RECEIPTS <= 0) throw new Error("--receipts needs a positive integer.");
const DAY_MS = 86_400_000;

/**
 * A loopback SMTP server that counts: no TLS, no AUTH, no parsing beyond the Message-ID header, so
 * that the bench process spends little of the machine's two cores on receiving.
 */
class CountingSmtpServer {
  readonly copies = new Map<string, number>();
  received = 0;
  lastAt = 0;
  firstAt = 0;
  /** One received message, whole (the floor resends copies of it). */
  sample: Buffer | null = null;
  private server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    size: 20 * 1024 * 1024,
    onData: (stream: SMTPServerDataStream, _session, callback) => {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        const raw = Buffer.concat(chunks);
        const header = raw.subarray(0, Math.min(raw.length, 8192)).toString("latin1");
        const messageId = /^Message-ID:\s*(<[^>]+>)/im.exec(header)?.[1] ?? "?";
        this.copies.set(messageId, (this.copies.get(messageId) ?? 0) + 1);
        this.sample ??= raw;
        this.received++;
        this.lastAt = performance.now();
        if (this.received === 1) this.firstAt = this.lastAt;
        callback();
      });
    },
  });
  port = 0;

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()));
    this.port = (this.server.server.address() as AddressInfo).port;
  }

  reset(): void {
    this.copies.clear();
    this.received = 0;
    this.firstAt = 0;
    this.lastAt = 0;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

async function until(condition: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} not reached within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

const smtp = new CountingSmtpServer();
await smtp.start();
const bench = await benchDatabase("bench_emails");
bench.closeLater(() => smtp.stop());
try {
  process.env.DATABASE_URL = bench.url;
  const db = await getDb();
  bench.closeLater(() => closeDb());
  const organization = await createOrganization(db, { name: "Emails bench" });
  const accountId = organization.sandboxAccountId;
  // Receipts off while the subscriptions are made (their first invoices are paid at once), and an
  // hourly limit above the run's count (the default 1,000 would mark the rest rate_limited).
  await db.update(accounts).set({ emailTypesDisabled: ["receipt"], emailHourlyLimit: RECEIPTS * 2, businessName: "Bench Tools" }).where(eq(accounts.id, accountId));
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  const ctx = systemContext(account!);
  const product = await createProduct({ ctx, input: { name: "Monthly plan" } });
  const price = await createPrice({
    ctx,
    input: { product: product.id, currency: "usd", unit_amount_atom: 2000, type: "recurring", recurring: { interval: "month", interval_count: 1 } },
  });
  const setUp = performance.now();
  const customerIds: string[] = [];
  await pool(
    Array.from({ length: RECEIPTS }, (_, i) => i),
    4,
    async (i) => {
      const customer = await createCustomer({ ctx, input: { email: `renewal-${i}@example.com` } });
      customerIds.push(customer.id);
      await createSubscription({ ctx, input: { customer: customer.id, items: [{ price: price.id }], default_payment_method: "pm_sandbox_succeeds" } });
    },
  );
  log(`set up ${RECEIPTS} subscriptions in ${seconds(performance.now() - setUp)}`);
  await db.update(accounts).set({ emailTypesDisabled: [] }).where(eq(accounts.id, accountId));

  const app = await startApp({
    DATABASE_URL: bench.url,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    EMAIL_FROM: "billing@bench.test",
    RATE_LIMIT_PER_SECOND: "100000000",
    PLATFORM_BILLING: undefined,
  });
  bench.closeLater(() => app.stop());
  const { token } = await issueToken(db, { accountId, kind: "secret", name: "bench" });
  let pick = 0;
  const customerPath = () => `/api/customers/${customerIds[pick++ % customerIds.length]}`;
  await load(app.baseUrl, token, customerPath, { connections: 4, duration: 2 });
  const idle = await load(app.baseUrl, token, customerPath, { connections: 4, duration: 10 });
  log(`GET /api/customers/{id} idle: p50 ${idle.p50} ms, p99 ${idle.p99} ms (${idle.rps.toFixed(0)} req/s)`);

  // The renewals: one advance past the period end, in this process (the app only sends).
  const [clocked] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  const advanceStart = performance.now();
  const load1 = loadavg()[0]!.toFixed(2);
  const advanced = await advanceClock({ ctx: systemContext(clocked!), input: { to: new Date(systemContext(clocked!).now().getTime() + 31 * DAY_MS) } });
  const advanceEnd = performance.now();
  log(`advance: ${advanced.transitionsRun} transitions in ${seconds(advanceEnd - advanceStart)}; ${smtp.received} receipts already received`);
  // The API while the rest drains (if any is left: 10 s of load, or less).
  const busy = smtp.received < RECEIPTS ? await load(app.baseUrl, token, customerPath, { connections: 4, duration: 10 }) : null;
  await until(() => smtp.received >= RECEIPTS, 30 * 60_000, `${RECEIPTS} receipts`);
  const lastAt = smtp.lastAt;
  const duplicates = [...smtp.copies.values()].filter((count) => count > 1).length;
  if (smtp.copies.size !== RECEIPTS || duplicates > 0) throw new Error(`received ${smtp.copies.size} distinct receipts (${duplicates} twice), expected ${RECEIPTS} once each`);
  const appSendMs = lastAt - smtp.firstAt;
  log(`all ${RECEIPTS} receipts received: ${seconds(lastAt - advanceStart)} after the advance started, ${seconds(lastAt - advanceEnd)} after it ended (load ${load1}→${loadavg()[0]!.toFixed(2)})`);
  log(`app: first to last receipt ${seconds(appSendMs)}, ${((RECEIPTS / appSendMs) * 1000).toFixed(0)} emails/s`);
  if (busy) log(`GET /api/customers/{id} while draining: p50 ${busy.p50} ms, p99 ${busy.p99} ms (${busy.rps.toFixed(0)} req/s)`);
  await app.stop();

  // The floor: nodemailer alone, the same transport settings, copies of a receipt the app sent.
  const sample = smtp.sample!.toString("latin1");
  smtp.reset();
  const transport = nodemailer.createTransport({ host: "127.0.0.1", port: smtp.port, secure: false, ignoreTLS: true, pool: true, maxConnections: 4 });
  const floorStart = performance.now();
  await pool(
    Array.from({ length: RECEIPTS }, (_, i) => i),
    16,
    async (i) => {
      const raw = sample.replace(/^Message-ID:\s*<[^>]+>/im, `Message-ID: <floor-${i}@bench.test>`);
      await transport.sendMail({ envelope: { from: "billing@bench.test", to: [`renewal-${i}@example.com`] }, raw: Buffer.from(raw, "latin1") });
    },
  );
  const floorMs = smtp.lastAt - floorStart;
  transport.close();
  if (smtp.copies.size !== RECEIPTS) throw new Error(`floor: received ${smtp.copies.size}, expected ${RECEIPTS}`);
  log(`floor (nodemailer alone, ${Math.round(smtp.sample!.length / 1024)} KB messages): ${seconds(floorMs)}, ${((RECEIPTS / floorMs) * 1000).toFixed(0)} emails/s`);

  console.log("\n| figure | value |\n|---|---|");
  console.log(`| receipts | ${RECEIPTS} |`);
  console.log(`| test-clock advance (renews and queues them) | ${seconds(advanceEnd - advanceStart)} |`);
  console.log(`| advance start → last receipt at the SMTP server | **${seconds(lastAt - advanceStart)}** |`);
  console.log(`| advance end (all queued) → last receipt | ${seconds(lastAt - advanceEnd)} |`);
  console.log(`| app sending, first → last receipt | ${seconds(appSendMs)} (${((RECEIPTS / appSendMs) * 1000).toFixed(0)}/s) |`);
  console.log(`| floor: nodemailer alone, same messages | ${seconds(floorMs)} (${((RECEIPTS / floorMs) * 1000).toFixed(0)}/s) |`);
  console.log(`| ratio app / floor | **${(appSendMs / floorMs).toFixed(1)}×** |`);
  console.log(`| GET /api/customers/{id} p99 idle → while draining | ${idle.p99} ms → ${busy ? `${busy.p99} ms (${(busy.p99 / Math.max(idle.p99, 1)).toFixed(1)}×)` : "(drained during the advance)"} |`);
  console.log(`load average (1, 5, 15 min) at the end: ${loadavg().map((value) => value.toFixed(2)).join(", ")}`);
} finally {
  await bench.cleanUp();
}
