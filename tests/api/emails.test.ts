import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import * as schema from "@/db/schema";
import { issueToken } from "@/lib/auth/tokens";
import { createOrganization } from "@/lib/organizations/service";
import { api, apiRoot, type Client, type Json } from "../helpers/api";
import { createMigratedDatabase, type TestDatabase } from "../helpers/database";
import { download } from "../helpers/pdf";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { TestSmtpServer, type ReceivedMail } from "../helpers/smtp";

/**
 * Transactional email over real SMTP (docs/emails.md): an app of its own, on a database of its
 * own (the shared app, without SMTP_URL, would write these emails to files), whose SMTP_URL names
 * a real SMTP server on loopback that requires STARTTLS and AUTH. Each received message is parsed
 * (mailparser) and checked against what the API serves.
 */
describe("emails over SMTP", () => {
  const smtp = new TestSmtpServer();
  let database: TestDatabase;
  let app: RunningApp;
  let sql: postgres.Sql;
  let client: Client;
  let account: string;
  let token: string;

  beforeAll(async () => {
    await smtp.start();
    database = await createMigratedDatabase("emails");
    app = await startApp({
      DATABASE_URL: database.url,
      SMTP_URL: smtp.url,
      EMAIL_FROM: "billing@acme.test",
      // Temporary failures retry quickly here (the default schedule waits minutes).
      EMAIL_RETRY_DELAYS: Array.from({ length: 40 }, () => "250ms").join(","),
      EMAIL_POLL_MS: "200",
      PLATFORM_BILLING: undefined,
    });
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    const db = drizzle(sql, { schema });
    const organization = await createOrganization(db, { name: "Acme" });
    account = organization.sandboxAccountId;
    token = (await issueToken(db, { accountId: account, kind: "secret", name: "emails test" })).token;
    client = api(token, apiRoot(app.baseUrl));
    const settings = await client.post("/account-settings", {
      business_name: "Acme Tools",
      support_email: "help@acme.test",
      email_reply_to: "billing-replies@acme.test",
    });
    expect(settings.status, settings.text).toBe(200);
  }, 120_000);

  // A failed test must not leave the server refusing the next one's mail.
  afterEach(() => {
    smtp.mode = { kind: "accept" };
  });

  afterAll(async () => {
    await app?.stop();
    await sql?.end();
    await database?.drop();
    await smtp.stop();
  });

  const ok = async (response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> => {
    const settled = await response;
    expect([200, 201], settled.text).toContain(settled.status);
    return settled.body;
  };

  async function openInvoice(email: string, amount = 4_200): Promise<{ customer: Json; invoice: Json }> {
    const customer = await ok(client.post("/customers", { email, name: "Ada Lovelace" }));
    const draft = await ok(client.post("/invoices", { customer: customer.id, currency: "usd", lines: [{ unit_amount_atom: amount, description: "Seat" }] }));
    return { customer, invoice: await ok(client.post(`/invoices/${draft.id}/finalize`)) };
  }

  const received = (address: string, count: number) =>
    eventually(
      async () => smtp.to(address),
      (mails) => mails.length >= count,
      30_000,
    );

  const emailRow = (id: string, accept: (email: Json) => boolean) => eventually(() => ok(client.get(`/emails/${id}`)), accept, 30_000);

  const pdfOf = (mail: ReceivedMail) => {
    const pdf = mail.parsed.attachments.find((file) => file.contentType === "application/pdf");
    expect(pdf, "a PDF attachment").toBeDefined();
    return pdf!.content;
  };

  it("sends the invoice (POST /invoices/{id}/send), the receipt and the credit note: PDFs as the API serves them, links that open", async () => {
    const address = "ada@example.com";
    const { customer, invoice } = await openInvoice(address);

    const queued = await client.post(`/invoices/${invoice.id}/send`);
    expect(queued.status, queued.text).toBe(201);
    expect(queued.body).toMatchObject({ object: "email", type: "invoice", to: [address], status: "queued", invoice: invoice.id, customer: customer.id });
    const [sent] = await received(address, 1);
    const issuedPdf = await download(`${invoice.invoice_pdf}?version=issued`, token);
    expect(pdfOf(sent!).equals(issuedPdf.bytes)).toBe(true);
    expect(sent!.parsed.subject).toBe(`Invoice ${invoice.number} from Acme Tools`);
    expect(sent!.parsed.from?.value).toEqual([{ address: "billing@acme.test", name: "Acme Tools" }]);
    expect(sent!.parsed.replyTo?.value).toEqual([{ address: "billing-replies@acme.test", name: "" }]);
    expect(sent!.parsed.messageId).toBe(queued.body.message_id);
    expect(sent!.parsed.html).toContain(`href="${invoice.hosted_invoice_url}"`);
    expect(sent!.parsed.text).toContain(invoice.hosted_invoice_url);
    const hosted = await fetch(invoice.hosted_invoice_url);
    expect(hosted.status).toBe(200);
    expect(await hosted.text()).toContain(invoice.number);
    const row = await emailRow(queued.body.id, (email) => email.status === "sent");
    expect(row).toMatchObject({ attempts: 1, smtp_response: expect.stringMatching(/^250/), sent_at: expect.any(String) });

    // Paid: the receipt, with the paid version of the PDF (what GET /invoices/{id}/pdf now serves).
    const paid = await ok(client.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_succeeds" }));
    expect(paid.status).toBe("paid");
    const receipt = (await received(address, 2))[1]!;
    expect(receipt.parsed.subject).toBe(`Your receipt from Acme Tools (invoice ${invoice.number})`);
    expect(pdfOf(receipt).equals((await download(invoice.invoice_pdf, token)).bytes)).toBe(true);
    expect(receipt.parsed.text).toContain("help@acme.test");

    // A credit note: its own PDF attached.
    const note = await ok(client.post("/credit-notes", { invoice: invoice.id, amount_atom: 1_000, reason: "order_change" }));
    const credited = (await received(address, 3))[2]!;
    expect(credited.parsed.subject).toBe(`Credit note ${note.number} from Acme Tools`);
    expect(pdfOf(credited).equals((await download(`${apiRoot(app.baseUrl)}/credit-notes/${note.id}/pdf`, token)).bytes)).toBe(true);

    // The log: one row per cause, each sent once, each with its event.
    const log = await eventually(
      () => ok(client.get(`/emails?invoice=${invoice.id}`)),
      (page) => page.items.every((email: Json) => email.status === "sent"),
    );
    expect(log.items.map((email: Json) => email.type)).toEqual(["credit_note", "receipt", "invoice"]);
    expect(log.items.map((email: Json) => email.attempts)).toEqual([1, 1, 1]);
    expect(smtp.to(address)).toHaveLength(3);
    const events = await ok(client.get(`/${account}/events?event_type=email.sent&limit=100`));
    expect(events.items.map((event: Json) => event.data.id)).toEqual(expect.arrayContaining(log.items.map((email: Json) => email.id)));
    const byCustomer = await ok(client.get(`/emails?customer=${customer.id}&type=receipt`));
    expect(byCustomer.items.map((email: Json) => email.id)).toEqual([log.items[1].id]);
    const preview = await ok(client.get(`/emails/${log.items[1].id}/preview`));
    expect(preview).toMatchObject({ object: "email_preview", subject: receipt.parsed.subject });
    expect(preview.html).toContain("Payment received");
  });

  it("a 421 from the server is retried with backoff, then delivered once with the same Message-ID", async () => {
    const address = "bob@example.com";
    smtp.mode = { kind: "refuse", code: 421, message: "Try again later" };
    const before = smtp.attempts;
    const { invoice } = await openInvoice(address);
    const failedPayment = await ok(client.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_declined" }));
    expect(failedPayment.status).toBe("open");
    const [queued] = (await ok(client.get(`/emails?invoice=${invoice.id}&type=payment_failed`))).items;
    expect(queued).toMatchObject({ type: "payment_failed", to: [address] });
    // Refused twice at least (a refused attempt may also end on the connection the server closed).
    const retrying = await emailRow(queued.id, (email) => email.attempts >= 2 && /^421/.test(email.smtp_response ?? ""));
    expect(retrying.status).toBe("queued");
    expect(smtp.attempts - before).toBeGreaterThanOrEqual(1);
    expect(smtp.to(address)).toHaveLength(0);

    smtp.mode = { kind: "accept" };
    const sent = await emailRow(queued.id, (email) => email.status === "sent");
    expect(sent.smtp_response).toMatch(/^250/);
    const mails = smtp.to(address);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.parsed.messageId).toBe(queued.message_id);
    expect(mails[0]!.parsed.subject).toBe(`Your payment to Acme Tools failed (invoice ${invoice.number})`);
    expect(mails[0]!.parsed.html).toContain(invoice.hosted_invoice_url);
  });

  it("a 550 fails the email at once (email.failed), without a retry", async () => {
    const address = "nobody@example.com";
    smtp.rejectedRecipients.add(address);
    const queued = await ok(client.post("/emails/test", { to: address }));
    const failed = await emailRow(queued.id, (email) => email.status !== "queued" || email.attempts > 1);
    expect(failed).toMatchObject({ status: "failed", attempts: 1, smtp_response: expect.stringMatching(/^550/), sent_at: null });
    const events = await eventually(
      () => ok(client.get(`/${account}/events?event_type=email.failed&limit=100`)),
      (page) => page.items.some((event: Json) => event.data.id === queued.id),
    );
    expect(events.items.find((event: Json) => event.data.id === queued.id).data.status).toBe("failed");
    // Settled: no longer due, so no attempt follows (the row would count it).
    const again = await ok(client.get(`/emails/${queued.id}`));
    expect(again.attempts).toBe(1);
  });

  it("a switched-off type queues nothing; the hourly limit marks the log row rate_limited instead of sending", async () => {
    await ok(client.post("/account-settings", { email_types_disabled: ["receipt"] }));
    const { invoice } = await openInvoice("carol@example.com");
    await ok(client.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_succeeds" }));
    // The email would have been queued in the payment's own transaction: there is none.
    expect((await ok(client.get(`/emails?invoice=${invoice.id}`))).items).toEqual([]);
    await ok(client.post("/account-settings", { email_types_disabled: [] }));

    const sentLastHour = (await ok(client.get("/emails?status=sent&limit=100"))).items.length;
    await ok(client.post("/account-settings", { email_hourly_limit: sentLastHour }));
    const limited = await ok(client.post("/emails/test", { to: "dave@example.com" }));
    const row = await emailRow(limited.id, (email) => email.status !== "queued");
    expect(row).toMatchObject({ status: "rate_limited", smtp_response: expect.stringMatching(/^429 /), sent_at: null });
    expect(smtp.to("dave@example.com")).toHaveLength(0);
    await ok(client.post("/account-settings", { email_hourly_limit: 1000 }));
  });

  it.each([
    ["a header injected through the address", { to: "a@example.com\r\nBcc: victim@example.com" }],
    ["an address over RFC 5321's 254 characters", { to: `${"a".repeat(64)}@${"b".repeat(190)}.example.com` }],
  ])("refuses a test email with %s (422), queueing nothing", async (_label, body) => {
    const before = (await ok(client.get("/emails?type=test&limit=100"))).total;
    const response = await client.post("/emails/test", body);
    expect(response.status, response.text).toBe(422);
    expect((await ok(client.get("/emails?type=test&limit=100"))).total).toBe(before);
  });

  it("keeps no address or body of the email operations in the request log", async () => {
    const refused = await client.post("/emails/test", { to: "secret-person@example.com\r\nBcc: x@example.com" });
    expect(refused.status).toBe(422);
    const listed = await client.get("/emails?limit=5");
    expect(listed.status).toBe(200);
    for (const requestId of [refused.body.request_id, listed.headers.get("x-request-id")]) {
      const logged = await eventually(
        () => client.get(`/request-logs/${requestId}`),
        (response) => response.status === 200,
      );
      expect(logged.body.request_body ?? null).toBeNull();
      expect(logged.body.response_body ?? null).toBeNull();
      expect(logged.text).not.toMatch(/@example\.com/);
    }
  });

  it("refuses a sender name with a line break (422) and keeps the one set", async () => {
    const response = await client.post("/account-settings", { email_sender_name: "Acme\r\nBcc: victim@example.com" });
    expect(response.status, response.text).toBe(422);
    expect((await ok(client.get("/account-settings"))).email_sender_name).toBeNull();
  });
});
