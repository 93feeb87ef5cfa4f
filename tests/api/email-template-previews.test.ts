import { count, eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { emails, events } from "@/db/schema";
import { issueToken } from "@/lib/auth/tokens";
import { EMAIL_TYPES } from "@/lib/email-outbox/types";
import { api, type Client, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { newTeam } from "../helpers/team";

/*
 * Settings → Emails' template previews (docs/emails.md, "Previewing the templates"):
 * `GET /email-templates/{type}/preview` renders every email type with sample facts and the
 * account's branding, and writes nothing.
 */

/** The types whose sample shows an amount (the invoice emails and the upcoming renewal's preview). */
const WITH_AMOUNT = ["invoice", "receipt", "payment_failed", "payment_action_required", "final_notice", "credit_note", "upcoming_renewal"];

const NBSP = "\u00a0";

let merchant: Merchant;
let client: Client;

const ok = async (response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> => {
  const settled = await response;
  expect([200, 201], settled.text).toContain(settled.status);
  return settled.body;
};

beforeAll(async () => {
  merchant = await newMerchant();
  client = merchant.client;
  await ok(
    client.post("/account-settings", {
      business_name: "Previews GmbH",
      email_sender_name: "Previews Billing",
      support_email: "help@previews.test",
      brand_color: "#0a7b83",
      invoice_prefix: "PRV",
    }),
  );
  // The sample amount is in the currency of the account's newest price.
  const product = await ok(client.post("/products", { name: "Pro plan" }));
  await ok(client.post("/prices", { product: product.id, currency: "eur", unit_amount_atom: 2_000, type: "recurring", recurring: { interval: "month" } }));
});

/** The rows a preview must never write: the outbox (the email log) and the events. */
async function writtenRows(accountId: string): Promise<{ emails: number; events: number }> {
  const db = await getDb();
  const [sent] = await db.select({ n: count() }).from(emails).where(eq(emails.accountId, accountId));
  const [emitted] = await db.select({ n: count() }).from(events).where(eq(events.accountId, accountId));
  return { emails: sent!.n, events: emitted!.n };
}

describe("GET /email-templates/{type}/preview", () => {
  it("previews every email type: the subject, HTML and text with the account's branding and the sample amount", async () => {
    for (const type of EMAIL_TYPES) {
      const preview = await ok(client.get(`/email-templates/${type}/preview?locale=en`));
      expect(Object.keys(preview).sort()).toEqual(["html", "locale", "object", "subject", "text", "type"]);
      expect(preview).toMatchObject({ object: "email_template_preview", type, locale: "en" });
      expect(preview.subject, type).toContain("Previews Billing");
      expect(preview.html, type).toMatch(/^<!doctype html><html lang="en">/);
      expect(preview.html, type).toContain("Previews Billing");
      expect(preview.html, type).toContain("border-top:4px solid #0a7b83");
      expect(preview.html, type).toContain('href="mailto:help@previews.test"');
      expect(preview.text.split("\n")[0], type).toBe("Previews Billing");
      expect(preview.text, type).toContain("Questions? Write to help@previews.test");
      if (WITH_AMOUNT.includes(type)) {
        expect(preview.text, type).toContain("Amount: €1,234.50");
        expect(preview.html, type).toContain("€1,234.50");
      } else {
        expect(preview.text, type).not.toContain("Amount:");
      }
    }
  });

  it("each type's own sample: the numbers with the account's prefix, the example links, its wording", async () => {
    const invoice = await ok(client.get("/email-templates/invoice/preview?locale=en"));
    expect(invoice.subject).toBe("Invoice PRV-0042 from Previews Billing");
    expect(invoice.text).toContain("Invoice: PRV-0042");
    expect(invoice.text).toContain("View invoice: https://example.com/invoice/sample");
    expect(invoice.html).toContain('href="https://example.com/invoice/sample"');
    expect((await ok(client.get("/email-templates/credit_note/preview?locale=en"))).subject).toBe("Credit note PRV-CN-0007 from Previews Billing");
    expect((await ok(client.get("/email-templates/receipt/preview?locale=en"))).text).toContain("Payment received");
    expect((await ok(client.get("/email-templates/final_notice/preview?locale=en"))).subject).toBe("Final notice: invoice PRV-0042 from Previews Billing is unpaid");
    const portal = await ok(client.get("/email-templates/portal_link/preview?locale=en"));
    expect(portal.subject).toBe("Your sign-in link for Previews Billing");
    expect(portal.text).toContain("Sign in: https://example.com/portal/start/sample");
    const trial = await ok(client.get("/email-templates/trial_ending/preview?locale=en"));
    expect(trial.text).toMatch(/Trial ends: [A-Z][a-z]+ \d{1,2}, \d{4}/);
  });

  it("fr and de give their wording, dates and money", async () => {
    const fr = await ok(client.get("/email-templates/invoice/preview?locale=fr"));
    expect(fr.locale).toBe("fr");
    expect(fr.subject).toBe("Facture PRV-0042 de Previews Billing");
    expect(fr.html).toContain('<html lang="fr">');
    expect(fr.html).toContain("Votre facture");
    expect(fr.text).toContain(`Montant: 1${NBSP}234,50${NBSP}€`);
    expect(fr.text).toContain("Des questions ? Écrivez à help@previews.test");
    expect(fr.text).toMatch(/Échéance: \d{1,2} \p{L}+ \d{4}/u);

    const de = await ok(client.get("/email-templates/upcoming_renewal/preview?locale=de"));
    expect(de.subject).toBe("Ihr Abonnement bei Previews Billing verlängert sich bald");
    expect(de.html).toContain('<html lang="de">');
    expect(de.text).toContain(`Betrag: 1.234,50${NBSP}€`);
    expect(de.text).toMatch(/Verlängerung am: \d{1,2}\. \p{L}+ \d{4}/u);

    const cancelled = await ok(client.get("/email-templates/subscription_cancelled/preview?locale=de"));
    expect(cancelled.text).toContain("Abonnement gekündigt");
  });

  it("the account-scoped path answers the same", async () => {
    const unscoped = await ok(client.get("/email-templates/payment_failed/preview?locale=fr"));
    const scoped = await ok(client.get(`/${merchant.accountId}/email-templates/payment_failed/preview?locale=fr`));
    expect(scoped).toEqual(unscoped);
  });

  it("without locale: the account's default_locale; without a price: USD; without settings: the account's name and the default colour", async () => {
    const other = await newMerchant("Plain Account");
    const plain = await ok(other.client.get("/email-templates/invoice/preview"));
    expect(plain.locale).toBe("en");
    expect(plain.subject).toMatch(/^Invoice [A-Z0-9]+-0042 from Plain Account$/);
    expect(plain.text).toContain("Amount: $1,234.50");
    expect(plain.html).toContain("border-top:4px solid #4f46e5");
    expect(plain.text).not.toContain("Questions?");
    await ok(other.client.post("/account-settings", { default_locale: "de" }));
    const german = await ok(other.client.get("/email-templates/invoice/preview"));
    expect(german.locale).toBe("de");
    expect(german.text).toContain(`Betrag: 1.234,50${NBSP}$`);
  });

  it("an unknown type is a 404 problem naming the types; a bad locale or an unknown parameter a 400 naming the field", async () => {
    const unknown = await client.get("/email-templates/newsletter/preview");
    expectProblem(unknown, 404, /No such email template: 'newsletter'/);
    for (const type of EMAIL_TYPES) expect(unknown.body.detail).toContain(type);
    expectProblem(await client.get(`/${merchant.accountId}/email-templates/Invoice/preview`), 404);

    const locale = await client.get("/email-templates/invoice/preview?locale=es");
    expectProblem(locale, 400);
    expect(locale.body.errors).toEqual([{ field: "locale", message: "Must be one of en, fr, de." }]);
    const extra = await client.get("/email-templates/invoice/preview?lang=fr");
    expectProblem(extra, 400);
    expect(extra.body.errors).toEqual([{ field: "lang", message: "Unknown field." }]);
  });

  it("writes nothing: no email in the outbox, no event", async () => {
    const before = await writtenRows(merchant.accountId);
    for (const type of EMAIL_TYPES) {
      for (const locale of ["en", "fr", "de"]) await ok(client.get(`/${merchant.accountId}/email-templates/${type}/preview?locale=${locale}`));
    }
    expect(await writtenRows(merchant.accountId)).toEqual(before);
    expect((await ok(client.get("/emails"))).items).toEqual([]);
  });

  it("as the email log: a restricted key needs logs:read; a publishable key is refused; every dashboard role may preview", async () => {
    const db = await getDb();
    const key = async (permissions: Record<string, string>) =>
      api((await issueToken(db, { accountId: merchant.accountId, kind: "restricted", name: "previews", permissions })).token);
    expect((await (await key({ logs: "read" })).get("/email-templates/receipt/preview")).status).toBe(200);
    const refused = await (await key({ settings: "write", invoices: "write" })).get("/email-templates/receipt/preview");
    expectProblem(refused, 403);
    expect(refused.body.required_permission).toBe("logs:read");
    expectProblem(await api(merchant.publishable.token).get("/email-templates/receipt/preview"), 403);

    const team = await newTeam();
    for (const role of ["viewer", "developer", "admin", "owner"] as const) {
      const answer = await team.sessions[role].request("GET", `/${team.live.id}/email-templates/trial_ending/preview?locale=fr`);
      expect(answer.status, `${role}: ${answer.text}`).toBe(200);
      expect(answer.body).toMatchObject({ object: "email_template_preview", type: "trial_ending", locale: "fr" });
    }
  });
});
