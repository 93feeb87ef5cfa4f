import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { issueToken } from "@/lib/auth/tokens";
import { SMTP_MAX_CONNECTIONS } from "@/lib/emails/transport";
import { createOrganization } from "@/lib/organizations/service";
import { api, apiRoot, statusOf, type Client, type Json } from "../helpers/api";
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
      // The portal sign-in link's limit is proven here (the test default lifts every limit).
      RATE_LIMIT_SIGN_IN_PER_MINUTE: "10",
      PLATFORM_BILLING: undefined,
    });
    sql = postgres(database.url, { max: 2, onnotice: () => {} });
    const db = drizzle(sql);
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

  /** A new account of its own (its test clock moves alone), branded as the main one. */
  async function ownAccount(): Promise<{ client: Client; account: string; token: string }> {
    const db = drizzle(sql);
    const organization = await createOrganization(db, { name: "Clocked" });
    const own = organization.sandboxAccountId;
    const ownToken = (await issueToken(db, { accountId: own, kind: "secret", name: "emails clock test" })).token;
    const ownClient = api(ownToken, apiRoot(app.baseUrl));
    await ok(ownClient.post("/account-settings", { business_name: "Acme Tools", support_email: "help@acme.test" }));
    return { client: ownClient, account: own, token: ownToken };
  }

  const DAY = 86_400_000;
  const plusDays = (date: string | Date, days: number) => new Date(new Date(date).getTime() + days * DAY);

  it("emails a send_invoice invoice at finalization (PDF, hosted link), due days_until_due later; charge_automatically is not emailed", async () => {
    const address = "erin@example.com";
    const customer = await ok(client.post("/customers", { email: address, name: "Erin" }));
    const draft = await ok(
      client.post("/invoices", { customer: customer.id, currency: "usd", collection_method: "send_invoice", days_until_due: 10, lines: [{ unit_amount_atom: 5_000, description: "Audit" }] }),
    );
    expect(draft).toMatchObject({ collection_method: "send_invoice", days_until_due: 10, due_date: null });
    const invoice = await ok(client.post(`/invoices/${draft.id}/finalize`));
    expect(invoice.status).toBe("open");
    expect(invoice.due_date).toBe(plusDays(invoice.finalized_at, 10).toISOString());
    // Queued in the finalization's transaction: listed as soon as the finalization answered.
    const [queued] = (await ok(client.get(`/emails?invoice=${invoice.id}`))).items;
    expect(queued).toMatchObject({ type: "invoice", to: [address], customer: customer.id });
    const finalizedEvent = await ok(client.get(`/${account}/events/${queued.event}`));
    expect(finalizedEvent).toMatchObject({ type: "invoice.finalized", data: { id: invoice.id } });

    const [mail] = await received(address, 1);
    expect(mail!.parsed.subject).toBe(`Invoice ${invoice.number} from Acme Tools`);
    expect(mail!.envelopeTo).toEqual([address]);
    expect(pdfOf(mail!).equals((await download(`${invoice.invoice_pdf}?version=issued`, token)).bytes)).toBe(true);
    expect(mail!.parsed.html).toContain(`href="${invoice.hosted_invoice_url}"`);
    expect(mail!.parsed.text).toContain(invoice.hosted_invoice_url);
    expect(await statusOf(invoice.hosted_invoice_url)).toBe(200);

    // The default: 30 days. charge_automatically (the default method) sends nothing at finalization.
    const defaulted = await ok(client.post("/invoices", { customer: customer.id, currency: "usd", collection_method: "send_invoice", lines: [{ unit_amount_atom: 100, description: "x" }] }));
    expect(defaulted.days_until_due).toBe(30);
    const finalized30 = await ok(client.post(`/invoices/${defaulted.id}/finalize`));
    expect(finalized30.due_date).toBe(plusDays(finalized30.finalized_at, 30).toISOString());
    const automatic = (await openInvoice("frank@example.com")).invoice;
    expect(automatic).toMatchObject({ collection_method: "charge_automatically", days_until_due: null, due_date: null });
    expect((await ok(client.get(`/emails?invoice=${automatic.id}`))).items).toEqual([]);
  });

  it.each([
    ["days_until_due without collection_method", "/invoices", { currency: "usd", days_until_due: 5 }],
    ["days_until_due with charge_automatically", "/invoices", { currency: "usd", collection_method: "charge_automatically", days_until_due: 5 }],
    ["both due_date and days_until_due", "/invoices", { currency: "usd", collection_method: "send_invoice", days_until_due: 5, due_date: "2030-01-01T00:00:00.000Z" }],
    ["a negative days_until_due", "/invoices", { currency: "usd", collection_method: "send_invoice", days_until_due: -1 }],
    ["an unknown collection_method", "/invoices", { currency: "usd", collection_method: "send_later" }],
    ["a subscription's days_until_due with charge_automatically", "/subscriptions", { days_until_due: 5 }],
  ])("refuses %s (422 on the field)", async (_label, path, body) => {
    const customer = await ok(client.post("/customers", { email: "rules@example.com" }));
    const items = async () => {
      const product = await ok(client.post("/products", { name: "Rules" }));
      const price = await ok(client.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 100, type: "recurring", recurring: { interval: "month" } }));
      return [{ price: price.id }];
    };
    const extra = path === "/subscriptions" ? { items: await items() } : {};
    const response = await client.post(path as "/invoices", { customer: customer.id, ...extra, ...body });
    expect(response.status, response.text).toBe(422);
    expect(response.body.request_id).toEqual(expect.any(String));
    expect(JSON.stringify(response.body.errors)).toMatch(/days_until_due|collection_method/);
  });

  it("a send_invoice subscription: trial ending, upcoming renewal, the renewal emailed and never charged (overdue at its due date), cancelled", async () => {
    const own = await ownAccount();
    const address = "gina@example.com";
    const customer = await ok(own.client.post("/customers", { email: address, name: "Gina", preferred_locale: "fr" }));
    const product = await ok(own.client.post("/products", { name: "Plan" }));
    const price = await ok(own.client.post("/prices", { product: product.id, currency: "usd", unit_amount_atom: 2_000, type: "recurring", recurring: { interval: "month" } }));
    const sub = await ok(
      own.client.post("/subscriptions", {
        customer: customer.id,
        items: [{ price: price.id }],
        trial_period_days: 10,
        default_payment_method: "pm_sandbox_succeeds",
        collection_method: "send_invoice",
        days_until_due: 7,
      }),
    );
    expect(sub).toMatchObject({ collection_method: "send_invoice", days_until_due: 7, status: "trialing" });
    const refused = await own.client.post(`/subscriptions/${sub.id}`, { collection_method: "charge_automatically", days_until_due: 3 });
    expect(refused.status, refused.text).toBe(422);
    const advance = async (to: Date) => ok(own.client.post(`/${own.account}/test-clock/advance`, { to: to.toISOString() }));

    // Three days before the trial ends: the trial ending notice, and the upcoming renewal (the period ends with the trial).
    await advance(plusDays(sub.trial_end, -3 + 1 / 24));
    const notices = await received(address, 2);
    const byType = async (type: string) => (await ok(own.client.get(`/emails?type=${type}&customer=${customer.id}`))).items;
    const [trialEmail] = await byType("trial_ending");
    const trialMail = notices.find((mail) => mail.parsed.messageId === trialEmail.message_id)!;
    expect(trialMail.parsed.subject).toBe("Votre essai Acme Tools se termine bientôt");
    expect(trialMail.parsed.text).toContain(new Intl.DateTimeFormat("fr", { dateStyle: "long", timeZone: "UTC" }).format(new Date(sub.trial_end)));
    const [upcomingEmail] = await byType("upcoming_renewal");
    const upcomingMail = notices.find((mail) => mail.parsed.messageId === upcomingEmail.message_id)!;
    expect(upcomingMail.parsed.subject).toBe("Votre abonnement Acme Tools se renouvelle bientôt");
    expect(upcomingMail.parsed.text).toMatch(/20,00\s\$US/);

    // The trial ends: the renewal invoice is emailed and waits for the customer, despite the default payment method.
    await advance(plusDays(sub.trial_end, 1 / 24));
    const renewed = await ok(own.client.get(`/subscriptions/${sub.id}`));
    const invoice = await ok(own.client.get(`/invoices/${renewed.latest_invoice}`));
    expect(renewed.status).toBe("active");
    expect(invoice).toMatchObject({ status: "open", collection_method: "send_invoice", attempt_count: 0, next_payment_attempt: null, payment_intent: null });
    expect(invoice.due_date).toBe(plusDays(invoice.finalized_at, 7).toISOString());
    const invoiceMail = (await received(address, 3))[2]!;
    expect(invoiceMail.parsed.subject).toBe(`Facture ${invoice.number} de Acme Tools`);
    expect(pdfOf(invoiceMail).equals((await download(`${invoice.invoice_pdf}?version=issued`, own.token)).bytes)).toBe(true);
    expect(invoiceMail.parsed.html).toContain(`href="${invoice.hosted_invoice_url}"`);

    // Unpaid past its due date: invoice.overdue, as for any invoice with a due date.
    await advance(plusDays(invoice.due_date, 1 / 24));
    const overdue = await ok(own.client.get(`/invoices/${invoice.id}`));
    expect(overdue).toMatchObject({ status: "open", overdue_at: expect.any(String), attempt_count: 0 });
    const overdueEvents = await ok(own.client.get(`/${own.account}/events?event_type=invoice.overdue&limit=10`));
    expect(overdueEvents.items.map((event: Json) => event.data.id)).toEqual([invoice.id]);

    // Cancelled: the last email, in French.
    await ok(own.client.post(`/subscriptions/${sub.id}/cancel`, {}));
    const cancelMail = (await received(address, 4))[3]!;
    expect(cancelMail.parsed.subject).toBe("Votre abonnement Acme Tools a été résilié");
    const log = await ok(own.client.get(`/emails?customer=${customer.id}&limit=20`));
    expect(log.items.map((email: Json) => email.type).sort()).toEqual(["invoice", "subscription_cancelled", "trial_ending", "upcoming_renewal"]);
    expect(smtp.to(address)).toHaveLength(4);
  });

  it("dunning's last failed retry sends the final notice once (in German, branded with the colour and support address); switched off, none", async () => {
    const own = await ownAccount();
    const branded = await ok(own.client.post("/account-settings", { brand_color: "#0A7C59" }));
    expect(branded.brand_color).toBe("#0a7c59");
    const product = await ok(own.client.post("/products", { name: "Plan" }));
    const price = await ok(own.client.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 1_500, type: "recurring", recurring: { interval: "month" } }));
    const advance = async (to: Date) => ok(own.client.post(`/${own.account}/test-clock/advance`, { to: to.toISOString() }));
    /** A declined subscription whose dunning runs to its end: the invoice uncollectible, the subscription cancelled. */
    const dunnedToTheEnd = async (address: string) => {
      const customer = await ok(own.client.post("/customers", { email: address, name: "Jonas", preferred_locale: "de" }));
      const sub = await ok(
        own.client.post("/subscriptions", { customer: customer.id, items: [{ price: price.id }], trial_period_days: 7, default_payment_method: "pm_sandbox_declined" }),
      );
      await advance(plusDays(sub.trial_end, 1 / 24));
      const pastDue = await ok(own.client.get(`/subscriptions/${sub.id}`));
      expect(pastDue.status).toBe("past_due");
      // The retries 3, 5 and 7 days after the first failure; the last one fails too.
      await advance(plusDays(sub.trial_end, 8));
      const invoice = await ok(own.client.get(`/invoices/${pastDue.latest_invoice}`));
      expect(invoice.status).toBe("uncollectible");
      expect((await ok(own.client.get(`/subscriptions/${sub.id}`))).status).toBe("cancelled");
      return { customer, invoice, sub };
    };

    const { customer, invoice, sub } = await dunnedToTheEnd("jonas@example.com");
    const [notice, ...more] = (await ok(own.client.get(`/emails?invoice=${invoice.id}&type=final_notice`))).items;
    expect(more).toEqual([]);
    expect(notice).toMatchObject({ to: ["jonas@example.com"], customer: customer.id, invoice: invoice.id });
    const cause = await ok(own.client.get(`/${own.account}/events/${notice.event}`));
    expect(cause).toMatchObject({ type: "invoice.marked_uncollectible", data: { id: invoice.id } });
    const mail = await eventually(
      async () => smtp.to("jonas@example.com").find((received) => received.parsed.messageId === notice.message_id),
      (found) => found !== undefined,
      30_000,
    );
    expect(mail!.parsed.subject).toBe(`Letzte Mahnung: Rechnung ${invoice.number} von Acme Tools ist unbezahlt`);
    expect(mail!.parsed.html).toContain(`href="${invoice.hosted_invoice_url}"`);
    expect(mail!.parsed.text).toContain(invoice.hosted_invoice_url);
    expect(mail!.parsed.text).toMatch(/15,00\s€/);
    // Branded: the account's colour (the button, the name, the top border) and its support address.
    expect(mail!.parsed.html).toContain("background:#0a7c59");
    expect(mail!.parsed.html).not.toContain("#4f46e5");
    expect(mail!.parsed.html).toContain(`href="mailto:help@acme.test"`);
    expect(mail!.parsed.text).toContain("help@acme.test");
    expect(mail!.parsed.attachments).toEqual([]);
    // The hosted page of the uncollectible invoice still opens (it may still be paid).
    expect(await statusOf(invoice.hosted_invoice_url)).toBe(200);
    // Later clock moves send nothing more for that cause: one notice, one cancellation.
    await advance(plusDays(sub.trial_end, 40));
    const types = (await ok(own.client.get(`/emails?customer=${customer.id}&limit=50`))).items.map((email: Json) => email.type);
    expect(types.filter((type: string) => type === "final_notice")).toHaveLength(1);
    expect(types.filter((type: string) => type === "subscription_cancelled")).toHaveLength(1);
    await eventually(
      async () => smtp.to("jonas@example.com").filter((received) => received.parsed.messageId === notice.message_id),
      (found) => found.length === 1,
    );

    // Switched off in Settings → Emails: the dunning ends the same, and no final notice is queued.
    await ok(own.client.post("/account-settings", { email_types_disabled: ["final_notice"] }));
    const silent = await dunnedToTheEnd("kai@example.com");
    expect((await ok(own.client.get(`/emails?invoice=${silent.invoice.id}&type=final_notice`))).items).toEqual([]);
    expect((await ok(own.client.get(`/emails?customer=${silent.customer.id}&type=subscription_cancelled`))).items).toHaveLength(1);
  });

  it("payment action required: the hosted link where the customer confirms, no attachment", async () => {
    const address = "hugo@example.com";
    const { invoice } = await openInvoice(address);
    const pending = await ok(client.post(`/invoices/${invoice.id}/pay`, { payment_method: "pm_sandbox_requires_action" }));
    expect(pending.status).toBe("open");
    const [queued] = (await ok(client.get(`/emails?invoice=${invoice.id}&type=payment_action_required`))).items;
    expect(queued).toMatchObject({ to: [address], event: expect.any(String) });
    const [mail] = await received(address, 1);
    expect(mail!.parsed.subject).toBe(`Action required: confirm your payment to Acme Tools (invoice ${invoice.number})`);
    expect(mail!.parsed.html).toContain(`href="${invoice.hosted_invoice_url}"`);
    expect(mail!.parsed.text).toContain(invoice.hosted_invoice_url);
    expect(mail!.parsed.attachments).toEqual([]);
    expect(await statusOf(invoice.hosted_invoice_url)).toBe(200);
  });

  it("portal sign-in: a customer's email gets a single-use link (it opens once, then not); an unknown email gets the same answer and nothing is sent", async () => {
    const address = "ivy@example.com";
    const customer = await ok(client.post("/customers", { email: address, name: "Ivy" }));
    const request = (email: string) =>
      fetch(`${apiRoot(app.baseUrl)}/portal-sign-in/${account}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email }) });
    const before = (await ok(client.get("/emails?type=portal_link&limit=100"))).total;

    const known = await request("IVY@Example.com");
    const knownBody = await known.json();
    expect(known.status).toBe(200);
    expect(knownBody).toEqual({ object: "portal_sign_in", message: expect.stringContaining("If this email belongs to a customer") });
    const [mail] = await received(address, 1);
    expect(mail!.envelopeTo).toEqual([address]);
    expect(mail!.parsed.subject).toBe("Your sign-in link for Acme Tools");
    const link = /https?:\/\/\S+\/portal\/start\/[A-Za-z0-9_-]{43}/.exec(mail!.parsed.text ?? "")?.[0];
    expect(link, mail!.parsed.text).toBeDefined();
    expect(mail!.parsed.html).toContain(`href="${link}"`);
    const [row] = (await ok(client.get(`/emails?type=portal_link&customer=${customer.id}`))).items;
    expect(row).toMatchObject({ to: [address], customer: customer.id });

    // The link starts a portal session once; opened again, it is refused.
    const first = await fetch(link!, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/portal");
    const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
    const portal = await fetch(new URL("/portal", app.baseUrl), { headers: { cookie } });
    expect(portal.status).toBe(200);
    expect(await portal.text()).toContain("Subscriptions");
    const again = await fetch(link!, { redirect: "manual" });
    expect(again.status).toBe(303);
    expect(again.headers.get("location")).toMatch(/\/refused$/);

    // Unknown: the same status and body, no email queued (it would be, in the request's transaction) or received.
    const unknown = await request("nobody-known@example.com");
    expect(unknown.status).toBe(known.status);
    expect(await unknown.json()).toEqual(knownBody);
    expect((await ok(client.get("/emails?type=portal_link&limit=100"))).total).toBe(before + 1);
    expect(smtp.to("nobody-known@example.com")).toHaveLength(0);

    // The account's page and its form: the same redirect either way.
    const page = await fetch(new URL(`/portal/sign-in/${account}`, app.baseUrl));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("Email me a sign-in link");
    const form = (email: string) =>
      fetch(new URL(`/portal/sign-in/${account}/send`, app.baseUrl), { method: "POST", body: new URLSearchParams({ email }), redirect: "manual" });
    const [formKnown, formUnknown] = [await form(address), await form("nobody-known@example.com")];
    expect([formKnown.status, formUnknown.status]).toEqual([303, 303]);
    expect(formUnknown.headers.get("location")).toBe(formKnown.headers.get("location"));
    expect(formKnown.headers.get("location")).toBe(`/portal/sign-in/${account}?sent=1`);
    await received(address, 2);
    expect((await ok(client.get("/emails?type=portal_link&limit=100"))).total).toBe(before + 2);

    // Rate limited per email (RATE_LIMIT_SIGN_IN_PER_MINUTE, 10): the 11th request in the minute is a 429 problem.
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 10; attempt++) statuses.push((await request("ratelimited@example.com")).status);
    expect(statuses).toEqual(Array.from({ length: 10 }, () => 200));
    const refused = await request("ratelimited@example.com");
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ request_id: expect.any(String) });
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

  it(`a backlog reuses the sender's pooled SMTP connections (at most ${SMTP_MAX_CONNECTIONS}), not a connection per email`, async () => {
    const before = smtp.connections;
    const count = 3 * SMTP_MAX_CONNECTIONS;
    const queued = await Promise.all(Array.from({ length: count }, () => ok(client.post("/emails/test", { to: "pool@example.com" }))));
    await eventually(
      async () => smtp.to("pool@example.com"),
      (received) => received.length === count,
    );
    expect(new Set(smtp.to("pool@example.com").map((received) => received.parsed.messageId))).toEqual(new Set(queued.map((email) => email.message_id)));
    expect(smtp.connections - before).toBeLessThanOrEqual(SMTP_MAX_CONNECTIONS);
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
