import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "@/lib/auth/tokens";
import { EMAIL_REPEATS_PER_CRASH, EMAIL_RETRY_SCHEDULE, EMAIL_SEND_CONCURRENCY } from "@/lib/emails/send";
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
 * - A front app with BACKGROUND_WORK=off takes the API requests that queue the emails and never
 *   sends; sender apps (background work on, SMTP_URL set) send.
 * - kill -9 of the sender CRASHES times while it drains a backlog, once in each block of
 *   EMAILS_PER_CRASH sends, each time restarted: every cause's email arrives, and the only repeats are messages a
 *   killed sender had claimed, at most one per crash though the sender sends on EMAIL_SEND_CONCURRENCY
 *   lanes (EMAIL_REPEATS_PER_CRASH: the accepted-but-not-recorded window), each with the same
 *   Message-ID as its first copy. The SMTP server holds the sends past each kill point, so every
 *   kill falls amid sends on a machine of any speed, and answers one of them just before the kill.
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

/**
 * The issue's "kill -9 during 200 sends (10 runs)": 10 crashes amid 200 sends, one in each block of
 * 20. EMAIL_CRASHES and EMAIL_SENDS_PER_CRASH change them (e.g. many more, to hunt a rare race).
 */
const CRASHES = Number(process.env.EMAIL_CRASHES ?? 10);
const EMAILS_PER_CRASH = Number(process.env.EMAIL_SENDS_PER_CRASH ?? 20);

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
    const db = drizzle(sql);
    const organization = await createOrganization(db, { name: "Faults" });
    account = organization.sandboxAccountId;
    const { token } = await issueToken(db, { accountId: account, kind: "secret", name: "email faults test" });
    client = api(token, apiRoot(front.baseUrl));
    await ok(client.post("/account-settings", { business_name: "Acme Tools", support_email: "help@acme.test", email_hourly_limit: 100_000 }));
  }, 120_000);

  afterEach(async () => {
    smtp.mode = { kind: "accept" };
    smtp.release();
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

  /**
   * `count` emails of a new customer, each a cause of its own: one finalized invoice sent `count`
   * times (`POST /invoices/{id}/send`, each call one email with the invoice PDF), by the front app,
   * which sends nothing. One request per email: the cheapest real cause to queue by the thousand.
   */
  async function queuedEmails(address: string, count: number): Promise<string> {
    const customer = await ok(client.post("/customers", { email: address, name: "Crash" }));
    const draft = await ok(client.post("/invoices", { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: 4_200, description: "Seat" }] }));
    await ok(client.post(`/invoices/${draft.id}/finalize`));
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          next++;
          // As a merchant's server sends: with an Idempotency-Key, retried on the API's retryable 503
          // (beside another whole run, the app found its database slow and answered "Retry in 5
          // seconds"); the same key sends the email at most once, so the count stays exact.
          const send = { headers: { "Idempotency-Key": `send-${address}-${next}` } };
          const queued = await eventually(
            () => client.post(`/invoices/${draft.id}/send`, undefined, send),
            (answer) => !(answer.status === 503 && (answer.body as { retryable?: boolean }).retryable === true),
            60_000,
          );
          expect(queued.status, queued.text).toBe(201);
        }
      }),
    );
    return customer.id;
  }

  type Row = { id: string; status: string; attempts: number; message_id: string; smtp_response: string | null };
  const emailsOf = (customer: string) =>
    sql<Row[]>`select id, status, attempts, message_id, smtp_response from emails where customer_id = ${customer} order by id`;

  /** The received messages for `address`, counted per Message-ID. */
  function copiesByMessageId(mails: ReceivedMail[]): Map<string, number> {
    const copies = new Map<string, number>();
    for (const mail of mails) copies.set(mail.parsed.messageId!, (copies.get(mail.parsed.messageId!) ?? 0) + 1);
    return copies;
  }

  it(`kill -9 of the sender ${CRASHES} times, each amid ${EMAILS_PER_CRASH} sends: every email arrives, repeats only in a killed sender's claim, with the same Message-ID`, { timeout: 20 * 60_000 }, async () => {
    const address = "crash@example.com";
    const total = CRASHES * EMAILS_PER_CRASH;
    const started = Date.now();
    const phase = (what: string) => console.log(`email crash test: ${what} at ${((Date.now() - started) / 1000).toFixed(0)} s`);
    const customer = await queuedEmails(address, total);
    const queued = await emailsOf(customer);
    expect(queued).toHaveLength(total);
    expect(queued.every((row) => row.status === "queued" && row.attempts === 0)).toBe(true);
    phase(`${total} emails queued`);

    // Each crash falls in its own block of EMAILS_PER_CRASH sends, at a different point of each.
    const killPoint = (crash: number) => crash * EMAILS_PER_CRASH + 2 + ((crash * 37) % (EMAILS_PER_CRASH - 4));
    // The sends past a kill point wait at the SMTP server, unanswered, from before the sender that
    // reaches it starts: the kill falls amid them, however fast the sender drains. One of them is
    // answered 250 just before the kill, which then most often falls between the server's 250 and
    // the sender's record of it: the window whose repeats the assertions below bound.
    smtp.holdFrom(killPoint(0));
    const claims: Set<string>[] = [];
    await startSender();
    for (let crash = 0; crash < CRASHES; crash++) {
      const killAt = killPoint(crash);
      await eventually(
        async () => ({ received: smtp.to(address).length, held: smtp.heldCount }),
        ({ received, held }) => received >= killAt && held > 0,
        120_000,
      );
      await smtp.acceptOneHeld();
      await senders.pop()!.kill();
      const atKill = await emailsOf(customer);
      // Killed while sending: some emails recorded sent, others not yet.
      expect(atKill.filter((row) => row.status === "sent").length).toBeLessThan(total);
      // Claimed by the killed sender and not recorded: the only emails that may arrive twice.
      // (Not "leased at the kill": on a loaded machine the 3 s lease may end before this read. A row
      // an earlier crash left stays here until re-sent: it is claimed again after the backlog.)
      claims.push(new Set(atKill.filter((row) => row.status === "queued" && row.attempts > 0).map((row) => row.message_id)));
      phase(`crash ${crash + 1} after ${smtp.to(address).length} received, ${claims.at(-1)!.size} claimed`);
      smtp.release();
      if (crash + 1 < CRASHES) smtp.holdFrom(killPoint(crash + 1));
      await startSender();
    }
    const settled = await eventually(
      () => emailsOf(customer),
      (rows) => rows.every((row) => row.status !== "queued"),
      300_000,
    );
    phase("drained");
    expect(settled.map((row) => row.status)).toEqual(settled.map(() => "sent"));

    const copies = copiesByMessageId(smtp.to(address));
    // Every cause's email arrived, and nothing else did.
    expect(copies.size).toBe(total);
    expect([...copies.keys()].sort()).toEqual(settled.map((row) => row.message_id).sort());
    const repeated = [...copies].filter(([, count]) => count > 1);
    for (const [messageId, count] of repeated) {
      // A copy per crash whose claim held it, beside the one recorded.
      const inClaims = claims.filter((claim) => claim.has(messageId)).length;
      expect(inClaims, `${messageId} repeated but was in no killed sender's claim`).toBeGreaterThan(0);
      expect(count, messageId).toBeLessThanOrEqual(1 + inClaims);
      expect(settled.find((row) => row.message_id === messageId)!.attempts).toBeGreaterThanOrEqual(count);
    }
    // At most one message per crash was between the server's 250 and its record, whatever the lanes:
    // in all, and among the repeats only one crash's claim held.
    expect(EMAIL_SEND_CONCURRENCY).toBeGreaterThan(EMAIL_REPEATS_PER_CRASH);
    expect(repeated.reduce((sum, [, count]) => sum + count - 1, 0)).toBeLessThanOrEqual(CRASHES * EMAIL_REPEATS_PER_CRASH);
    for (const [crash, claim] of claims.entries()) {
      const onlyThisCrash = repeated.filter(([messageId]) => claim.has(messageId) && claims.filter((other) => other.has(messageId)).length === 1);
      expect(onlyThisCrash.length, `crash ${crash + 1}`).toBeLessThanOrEqual(EMAIL_REPEATS_PER_CRASH);
    }
    // Not asserted (a kill may fall outside the window every time): printed, for the record.
    console.log(`email crash test: ${CRASHES} crashes, ${repeated.length} messages repeated (accepted by the server, not yet recorded)`);
  });

  it(`an SMTP outage (421 for ${OUTAGE_MS / 1000} s, the issue's 2 minutes / ${TIME_SCALE}, with the retry schedule / ${TIME_SCALE}): every email delivered once afterwards, none failed`, { timeout: 180_000 }, async () => {
    const address = "outage@example.com";
    await startSender();
    smtp.mode = { kind: "outage", code: 421, message: "Service not available, try again later" };
    const outageStart = Date.now();
    const customer = await queuedEmails(address, 40);
    // Refused while the outage lasts: retried, never failed, nothing received.
    const refused = await eventually(
      () => emailsOf(customer),
      (rows) => rows.filter((row) => /^421/.test(row.smtp_response ?? "")).length >= 10,
      60_000,
    );
    expect(refused.every((row) => row.status === "queued")).toBe(true);
    expect(smtp.to(address)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, OUTAGE_MS - (Date.now() - outageStart))));
    // An outage's length is the scenario, not a synchronisation: the server is restored after it.
    expect(smtp.to(address)).toHaveLength(0);
    const duringOutage = await emailsOf(customer);
    smtp.mode = { kind: "accept" };

    const settled = await eventually(
      () => emailsOf(customer),
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
