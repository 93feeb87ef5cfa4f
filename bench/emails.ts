/**
 * Benchmark: receipts through a real SMTP server (issue #37), on the built app (`npm run build`
 * first).
 *
 * `--invoices` (default 100) invoices of one sandbox account are paid by a sandbox card (through
 * the API). `--receipts` (default 10,000) receipts of those paid invoices are then written to the
 * outbox by the outbox's own function (`enqueueEmail`, as `invoice.paid` does, each with a cause
 * of its own), in transactions of 500, while the app (embedded sender, SMTP_URL naming a loopback
 * SMTP server) sends them: each is rendered with its invoice's PDF, sent, and recorded with its
 * `email.sent` event. Printed: the time until the last receipt reached the server (from the first
 * queued), the sending throughput, and the p99 of `GET /api/customers/{id}` idle and while the
 * receipts drain.
 *
 * Not the test clock: queuing 10,000 receipts through renewals costs what the clock's serial
 * renewal costs (bench/stripe-renewals.ts, bench/test-clock.ts), which would hide the sender.
 *
 * The floor, measured in the same run on the same server: nodemailer alone (the same pooled
 * transport settings as lib/emails/transport.ts) sending the same number of messages, each a copy
 * of a receipt the app sent (its PDF attached) with a Message-ID of its own. Checked, not timed:
 * every receipt received exactly once. A second floor, for distinct invoices: rendering each
 * receipt's invoice PDF alone (loaded and rendered as the sender does, one after another in one
 * process, as the app's one JavaScript thread must), timed over up to 1,000 renders and given per
 * receipt and for the run's count.
 *
 *   npx tsx bench/emails.ts [--receipts 10000] [--invoices 100]        (npm run bench:emails -- …)
 */
import { loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { SMTPServer, type SMTPServerDataStream } from "smtp-server";
import { closeDb, getDb } from "@/db/client";
import { accounts, customers, invoices } from "@/db/schema";
import { issueToken } from "@/lib/auth/tokens";
import { loadInvoice } from "@/lib/invoices/core";
import { invoicePdf } from "@/lib/invoices/hosted";
import { systemContext } from "@/lib/clock/service";
import { enqueueEmail } from "@/lib/email-outbox/enqueue";
import { smtpPool } from "@/lib/emails/transport";
import { createOrganization } from "@/lib/organizations/service";
import { startApp } from "@/tests/helpers/server";
import { benchDatabase, benchEnvironment, load, log, option } from "./http";
import { pool } from "./pool";

benchEnvironment();

const RECEIPTS = Number(option("receipts", "10000"));
const INVOICES = Number(option("invoices", "100"));
if (!Number.isInteger(RECEIPTS) || RECEIPTS <= 0 || !Number.isInteger(INVOICES) || INVOICES <= 0) throw new Error("--receipts and --invoices need positive integers.");

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
  // Receipts off while the paid invoices are made (those receipts are not the measured ones), and an hourly limit above the run's count (the default
  // 1,000 would mark the rest rate_limited).
  await db.update(accounts).set({ emailTypesDisabled: ["receipt"], emailHourlyLimit: RECEIPTS * 2, businessName: "Bench Tools" }).where(eq(accounts.id, accountId));
  const [account] = await db.select().from(accounts).where(eq(accounts.id, accountId));
  const ctx = systemContext(account!);
  const app = await startApp({
    DATABASE_URL: bench.url,
    SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    EMAIL_FROM: "billing@bench.test",
    RATE_LIMIT_PER_SECOND: "100000000",
    PLATFORM_BILLING: undefined,
  });
  bench.closeLater(() => app.stop());
  const { token } = await issueToken(db, { accountId, kind: "secret", name: "bench" });
  const api = async (path: string, body?: unknown) => {
    const response = await fetch(`${app.baseUrl}/api${path}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify(body ?? {}),
    });
    const json = (await response.json()) as Record<string, unknown> & { id: string };
    if (response.status >= 300) throw new Error(`POST ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json;
  };
  // The paid invoices whose receipts are sent, made through the API.
  const setUp = performance.now();
  const customerIds: string[] = [];
  await pool(
    Array.from({ length: INVOICES }, (_, i) => i),
    4,
    async (i) => {
      const customer = await api("/customers", { email: `customer-${i}@example.com`, name: `Customer ${i}` });
      customerIds.push(customer.id);
      const draft = await api("/invoices", { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: 2_000 + i, description: "Monthly plan" }] });
      await api(`/invoices/${draft.id}/finalize`);
      await api(`/invoices/${draft.id}/pay`, { payment_method: "pm_sandbox_succeeds" });
    },
  );
  const paid = await db
    .select({ id: invoices.id, number: invoices.number, customerId: invoices.customerId, email: customers.email })
    .from(invoices)
    .innerJoin(customers, eq(customers.id, invoices.customerId))
    .where(and(eq(invoices.accountId, accountId), eq(invoices.status, "paid")));
  if (paid.length !== INVOICES) throw new Error(`${paid.length} paid invoices, expected ${INVOICES}`);
  log(`set up ${INVOICES} paid invoices in ${seconds(performance.now() - setUp)}`);
  await db.update(accounts).set({ emailTypesDisabled: [] }).where(eq(accounts.id, accountId));

  let pick = 0;
  const customerPath = () => `/api/customers/${customerIds[pick++ % customerIds.length]}`;
  await load(app.baseUrl, token, customerPath, { connections: 4, duration: 2 });
  const idle = await load(app.baseUrl, token, customerPath, { connections: 4, duration: 10 });
  log(`GET /api/customers/{id} idle: p50 ${idle.p50} ms, p99 ${idle.p99} ms (${idle.rps.toFixed(0)} req/s)`);

  // The receipts, as invoice.paid queues them, in transactions of 500 (the app polls every EMAIL_POLL_MS).
  const queueStart = performance.now();
  const load1 = loadavg()[0]!.toFixed(2);
  for (let from = 0; from < RECEIPTS; from += 500) {
    await db.transaction(async (tx) => {
      for (let i = from; i < Math.min(RECEIPTS, from + 500); i++) {
        const invoice = paid[i % paid.length]!;
        const id = await enqueueEmail(tx, ctx, {
          type: "receipt",
          to: [invoice.email],
          causeKey: `bench:${i}:receipt`,
          locale: null,
          number: invoice.number ?? invoice.id,
          customerId: invoice.customerId,
          invoiceId: invoice.id,
        });
        if (!id) throw new Error(`receipt ${i} was not queued`);
      }
    });
  }
  const queueEnd = performance.now();
  log(`queued ${RECEIPTS} receipts in ${seconds(queueEnd - queueStart)}; ${smtp.received} already received`);
  // The API while the rest drains (10 s of load, if any is left).
  const busy = smtp.received < RECEIPTS ? await load(app.baseUrl, token, customerPath, { connections: 4, duration: 10 }) : null;
  await until(() => smtp.received >= RECEIPTS, 60 * 60_000, `${RECEIPTS} receipts`);
  const lastAt = smtp.lastAt;
  const duplicates = [...smtp.copies.values()].filter((count) => count > 1).length;
  if (smtp.copies.size !== RECEIPTS || duplicates > 0) throw new Error(`received ${smtp.copies.size} distinct receipts (${duplicates} twice), expected ${RECEIPTS} once each`);
  const appSendMs = lastAt - smtp.firstAt;
  log(`all ${RECEIPTS} receipts received ${seconds(lastAt - queueStart)} after the first was queued (load ${load1}→${loadavg()[0]!.toFixed(2)})`);
  log(`app: first to last receipt ${seconds(appSendMs)}, ${((RECEIPTS / appSendMs) * 1000).toFixed(0)} emails/s`);
  if (busy) log(`GET /api/customers/{id} while draining: p50 ${busy.p50} ms, p99 ${busy.p99} ms (${busy.rps.toFixed(0)} req/s)`);
  await app.stop();

  // The floor: nodemailer alone, the same transport settings, copies of a receipt the app sent.
  const sample = smtp.sample!.toString("latin1");
  smtp.reset();
  const transport = smtpPool(`smtp://127.0.0.1:${smtp.port}`);
  const floorStart = performance.now();
  await pool(
    Array.from({ length: RECEIPTS }, (_, i) => i),
    16,
    async (i) => {
      const raw = sample.replace(/^Message-ID:\s*<[^>]+>/im, `Message-ID: <floor-${i}@bench.test>`);
      await transport.sendMail({ envelope: { from: "billing@bench.test", to: [`customer-${i}@example.com`] }, raw: Buffer.from(raw, "latin1") });
    },
  );
  const floorMs = smtp.lastAt - floorStart;
  transport.close();
  if (smtp.copies.size !== RECEIPTS) throw new Error(`floor: received ${smtp.copies.size}, expected ${RECEIPTS}`);
  log(`floor (nodemailer alone, ${Math.round(smtp.sample!.length / 1024)} KB messages): ${seconds(floorMs)}, ${((RECEIPTS / floorMs) * 1000).toFixed(0)} emails/s`);

  // The second floor: the receipts' PDFs alone, rendered as the sender renders them (distinct invoices: nothing to share between them).
  const paidRows = await db.select().from(invoices).where(and(eq(invoices.accountId, accountId), eq(invoices.status, "paid")));
  const renders = Math.min(RECEIPTS, 1000);
  await invoicePdf(await loadInvoice(db, paidRows[0]!));
  const pdfStart = performance.now();
  for (let i = 0; i < renders; i++) await invoicePdf(await loadInvoice(db, paidRows[i % paidRows.length]!));
  const pdfMsEach = (performance.now() - pdfStart) / renders;
  log(`PDF render alone (load + render, serial, ${renders} renders): ${pdfMsEach.toFixed(1)} ms per receipt, ${seconds(pdfMsEach * RECEIPTS)} for ${RECEIPTS}`);

  console.log("\n| figure | value |\n|---|---|");
  console.log(`| receipts (of ${INVOICES} paid invoices) | ${RECEIPTS} |`);
  console.log(`| queuing them (transactions of 500) | ${seconds(queueEnd - queueStart)} |`);
  console.log(`| first queued → last receipt at the SMTP server | **${seconds(lastAt - queueStart)}** |`);
  console.log(`| app sending, first → last receipt | ${seconds(appSendMs)} (${((RECEIPTS / appSendMs) * 1000).toFixed(0)}/s) |`);
  console.log(`| floor: nodemailer alone, same messages | ${seconds(floorMs)} (${((RECEIPTS / floorMs) * 1000).toFixed(0)}/s) |`);
  console.log(`| ratio app / floor | **${(appSendMs / floorMs).toFixed(1)}×** |`);
  console.log(`| second floor: the ${RECEIPTS} PDFs rendered alone, serially | ${seconds(pdfMsEach * RECEIPTS)} (${pdfMsEach.toFixed(1)} ms each); ratio app / it ${(appSendMs / (pdfMsEach * RECEIPTS)).toFixed(1)}× |`);
  console.log(`| GET /api/customers/{id} p99 idle → while draining | ${idle.p99} ms → ${busy ? `${busy.p99} ms (${(busy.p99 / Math.max(idle.p99, 1)).toFixed(1)}×)` : "(drained while queuing)"} |`);
  console.log(`load average (1, 5, 15 min) at the end: ${loadavg().map((value) => value.toFixed(2)).join(", ")}`);
} finally {
  await bench.cleanUp();
}
