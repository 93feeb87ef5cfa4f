import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as schema from "@/db/schema";
import { issueToken } from "@/lib/auth/tokens";
import { EMAIL_RETRY_SCHEDULE, EMAIL_SEND_CONCURRENCY } from "@/lib/emails/send";
import { createOrganization } from "@/lib/organizations/service";
import { api, apiRoot, type Client, type Json } from "../helpers/api";
import { createMigratedDatabase, type TestDatabase } from "../helpers/database";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { TestSmtpServer, type ReceivedMail } from "../helpers/smtp";

/**
 * The outbox's faults over real SMTP (docs/emails.md, "Exactly once per cause"): a real SMTP server
 * on loopback (STARTTLS, AUTH) and real app processes on a database of their own.
 *
 * - A front app with BACKGROUND_WORK=off takes the API requests that queue the emails (paid
 *   invoices: their receipts) and never sends; sender apps (background work on, SMTP_URL set) send.
 * - kill -9 of a sender while it drains 200 receipts, CRASH_RUNS times: after a restart every
 *   cause's email has arrived, and the only repeats are messages the killed sender had claimed,
 *   at most one per sending lane (EMAIL_SEND_CONCURRENCY: the accepted-but-not-recorded window),
 *   each with the same Message-ID as its first copy.
 * - An SMTP outage (421 at the greeting and at MAIL FROM): every email is delivered once after it,
 *   none failed.
 */

/**
 * The outage and the retry schedule, scaled together: the issue's 2-minute outage against the
 * production schedule (EMAIL_RETRY_SCHEDULE, 1m, 5m, 30m, …), both divided by TIME_SCALE. The
 * schedule is configurable (EMAIL_RETRY_DELAYS), so the test keeps their ratio and runs in seconds.
 */
const TIME_SCALE = 30;
const OUTAGE_MS = (2 * 60_000) / TIME_SCALE;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 };
const SCALED_SCHEDULE = EMAIL_RETRY_SCHEDULE.map((delay) => {
  const [, amount, unit] = /^(\d+)(ms|s|m|h)$/.exec(delay)!;
  return `${Math.round((Number(amount) * UNIT_MS[unit!]!) / TIME_SCALE)}ms`;
}).join(",");

/** The issue asks for 10 runs; EMAIL_CRASH_RUNS changes it (e.g. many more, to hunt a rare race). */
const CRASH_RUNS = Number(process.env.EMAIL_CRASH_RUNS ?? 10);
const EMAILS_PER_RUN = 200;

describe("emails across faults", () => {
  const smtp = new TestSmtpServer();
  let database: TestDatabase;
  let front: RunningApp;
  let sql: postgres.Sql;
  let client: Client;
  let account: string;
  const senders: RunningApp[] = [];

  beforeAll(async () => {
    await smtp.start();
    database = await createMigratedDatabase("email_faults");
    front = await startApp({ ...appEnv(), BACKGROUND_WORK: "off" });
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    const db = drizzle(sql, { schema });
    const organization = await createOrganization(db, { name: "Faults" });
    account = organization.sandboxAccountId;
    const { token } = await issueToken(db, { accountId: account, kind: "secret", name: "email faults test" });
    client = api(token, apiRoot(front.baseUrl));
    await ok(client.post("/account-settings", { business_name: "Acme Tools", support_email: "help@acme.test", email_hourly_limit: 100_000 }));
  }, 120_000);

  afterEach(async () => {
    smtp.mode = { kind: "accept" };
    await Promise.all(senders.splice(0).map((sender) => sender.stop()));
  });

  afterAll(async () => {
    await front?.stop();
    await sql?.end();
    await database?.drop();
    await smtp.stop();
  });

  function appEnv(): Record<string, string | undefined> {
    return {
      DATABASE_URL: database.url,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "billing@acme.test",
      EMAIL_RETRY_DELAYS: SCALED_SCHEDULE,
      EMAIL_POLL_MS: "200",
      // A killed sender's claims come back after 3 s instead of 5 minutes. Safe here: only one
      // sender runs at a time, so no other process takes over a claim still being sent.
      EMAIL_LEASE_MS: "3000",
      PLATFORM_BILLING: undefined,
    };
  }

  async function startSender(): Promise<RunningApp> {
    const sender = await startApp(appEnv());
    senders.push(sender);
    return sender;
  }

  const ok = async (response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> => {
    const settled = await response;
    expect([200, 201], settled.text).toContain(settled.status);
    return settled.body;
  };

  /** `count` invoices of a new customer, paid: `count` receipts queued (by the front app, which sends nothing). */
  async function paidInvoices(address: string, count: number): Promise<string> {
    const customer = await ok(client.post("/customers", { email: address, name: "Crash" }));
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          next++;
          const draft = await ok(client.post("/invoices", { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: 1_000 + next, description: "Seat" }] }));
          await ok(client.post(`/invoices/${draft.id}/finalize`));
          const paid = await ok(client.post(`/invoices/${draft.id}/pay`, { payment_method: "pm_sandbox_succeeds" }));
          expect(paid.status).toBe("paid");
        }
      }),
    );
    return customer.id;
  }

  type Row = { id: string; status: string; attempts: number; message_id: string; smtp_response: string | null };
  const receiptsOf = (customer: string) =>
    sql<Row[]>`select id, status, attempts, message_id, smtp_response from emails where customer_id = ${customer} and type = 'receipt' order by id`;

  /** The received messages for `address`, counted per Message-ID. */
  function copiesByMessageId(mails: ReceivedMail[]): Map<string, number> {
    const copies = new Map<string, number>();
    for (const mail of mails) copies.set(mail.parsed.messageId!, (copies.get(mail.parsed.messageId!) ?? 0) + 1);
    return copies;
  }

  it(`kill -9 of the sender amid ${EMAILS_PER_RUN} receipts (${CRASH_RUNS} runs): every receipt arrives, repeats only in the claimed window, same Message-ID`, { timeout: CRASH_RUNS * 120_000 }, async () => {
    let repeatsSeen = 0;
    const started = Date.now();
    const phase = (run: number, what: string) => console.log(`email crash run ${run}: ${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);
    for (let run = 0; run < CRASH_RUNS; run++) {
      const address = `crash-${run}@example.com`;
      const customer = await paidInvoices(address, EMAILS_PER_RUN);
      phase(run, "queued");
      const queued = await receiptsOf(customer);
      expect(queued).toHaveLength(EMAILS_PER_RUN);
      expect(queued.every((row) => row.status === "queued" && row.attempts === 0)).toBe(true);

      // Kill at a different point of each run: early, midway, late in the backlog.
      const killAt = 10 + Math.floor(((run * 37) % CRASH_RUNS) * ((EMAILS_PER_RUN - 30) / CRASH_RUNS));
      const victim = await startSender();
      phase(run, "sender started");
      await eventually(
        async () => smtp.to(address).length,
        (received) => received >= killAt,
        60_000,
      );
      await victim.kill();
      phase(run, `killed after ${killAt} received`);
      const atKill = await receiptsOf(customer);
      const receivedAtKill = smtp.to(address).length;
      // Killed while sending: some receipts recorded sent, some not.
      expect(atKill.filter((row) => row.status === "sent").length).toBeLessThan(EMAILS_PER_RUN);
      expect(receivedAtKill).toBeLessThan(EMAILS_PER_RUN);
      // Claimed by the killed sender, not recorded: the only emails that may arrive twice.
      const claimedAtKill = new Set(atKill.filter((row) => row.status === "queued" && row.attempts > 0).map((row) => row.message_id));

      await startSender();
      const settled = await eventually(
        () => receiptsOf(customer),
        (rows) => rows.every((row) => row.status !== "queued"),
        90_000,
      );
      expect(settled.map((row) => row.status)).toEqual(settled.map(() => "sent"));
      phase(run, "drained after the restart");

      const copies = copiesByMessageId(smtp.to(address));
      const expectedIds = new Set(settled.map((row) => row.message_id));
      // Every cause's email arrived, and nothing else did.
      expect([...copies.keys()].sort()).toEqual([...expectedIds].sort());
      const repeated = [...copies].filter(([, count]) => count > 1);
      for (const [messageId, count] of repeated) {
        expect(count, messageId).toBe(2);
        expect(claimedAtKill.has(messageId), `${messageId} repeated but was not in the killed sender's claim`).toBe(true);
        // Its row counts the killed attempt and the one after the restart.
        expect(settled.find((row) => row.message_id === messageId)!.attempts).toBeGreaterThanOrEqual(2);
      }
      // At most one message per sending lane was between the server's 250 and its record.
      expect(repeated.length).toBeLessThanOrEqual(EMAIL_SEND_CONCURRENCY);
      repeatsSeen += repeated.length;
      await Promise.all(senders.splice(0).map((sender) => sender.stop()));
    }
    // Not asserted (a kill may fall outside the window every time): printed, for the record.
    console.log(`email crash runs: ${CRASH_RUNS}, messages repeated in the accepted-but-not-recorded window: ${repeatsSeen}`);
  });

  it(`an SMTP outage (421 for ${OUTAGE_MS / 1000} s, the issue's 2 minutes / ${TIME_SCALE}, with the retry schedule / ${TIME_SCALE}): every email delivered once afterwards, none failed`, { timeout: 180_000 }, async () => {
    const address = "outage@example.com";
    await startSender();
    smtp.mode = { kind: "outage", code: 421, message: "Service not available, try again later" };
    const outageStart = Date.now();
    const customer = await paidInvoices(address, 40);
    // Refused while the outage lasts: retried, never failed, nothing received.
    const refused = await eventually(
      () => receiptsOf(customer),
      (rows) => rows.filter((row) => /^421/.test(row.smtp_response ?? "")).length >= 10,
      60_000,
    );
    expect(refused.every((row) => row.status === "queued")).toBe(true);
    expect(smtp.to(address)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - outageStart))));
    // An outage's length is the scenario, not a synchronisation: the server is restored after it.
    expect(smtp.to(address)).toHaveLength(0);
    const duringOutage = await receiptsOf(customer);
    smtp.mode = { kind: "accept" };

    const settled = await eventually(
      () => receiptsOf(customer),
      (rows) => rows.every((row) => row.status !== "queued"),
      120_000,
    );
    expect(settled.map((row) => row.status)).toEqual(settled.map(() => "sent"));
    const copies = copiesByMessageId(smtp.to(address));
    expect([...copies.keys()].sort()).toEqual(settled.map((row) => row.message_id).sort());
    expect([...copies.values()].every((count) => count === 1)).toBe(true);
    // Those refused during the outage (their last answer a 421) were retried: more than one attempt each.
    const refusedIds = new Set(duringOutage.filter((row) => /^421/.test(row.smtp_response ?? "")).map((row) => row.id));
    expect(refusedIds.size).toBeGreaterThanOrEqual(10);
    for (const row of settled) if (refusedIds.has(row.id)) expect(row.attempts, row.id).toBeGreaterThanOrEqual(2);
    expect(smtp.refusedConnections + smtp.attempts).toBeGreaterThan(0);
    // No email.failed event for any of them.
    const failedEvents = await sql`select count(*)::int as n from events where account_id = ${account} and type = 'email.failed'`;
    expect(failedEvents[0]!.n).toBe(0);
  });
});
