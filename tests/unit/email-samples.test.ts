import { describe, expect, it } from "vitest";
import { DEFAULT_BRAND_COLOR } from "@/lib/emails/compose";
import { SAMPLE_LINKS, sampleAmountAtom, sampleEmail, type SampleEmailInput } from "@/lib/emails/samples";
import { SWITCHABLE_EMAIL_TYPES } from "@/lib/email-outbox/types";

/** The template previews' sample emails (lib/emails/samples.ts): composed by the sender's code with sample facts. */
const base: SampleEmailInput = {
  type: "invoice",
  locale: "en",
  branding: { seller: "Acme Tools", supportEmail: "help@acme.test", brandColor: "#12ab34" },
  invoicePrefix: "ACME",
  currency: "eur",
  now: new Date("2026-03-01T12:00:00Z"),
};

describe("sample emails", () => {
  it("the sample amount is 1234.50 in atoms of the currency's exponent (integers only)", () => {
    expect(sampleAmountAtom("usd")).toBe(123_450);
    expect(sampleAmountAtom("jpy")).toBe(1_234);
    expect(sampleAmountAtom("kwd")).toBe(1_234_500);
  });

  it("an invoice in each language: the sender's subject, the sample number, amount and due date, the example link", () => {
    const en = sampleEmail(base);
    expect(en.subject).toBe("Invoice ACME-0042 from Acme Tools");
    expect(en.text).toContain("Amount: €1,234.50");
    expect(en.text).toContain("Due: March 31, 2026");
    expect(en.text).toContain(`View invoice: ${SAMPLE_LINKS.invoice}`);
    expect(en.html).toContain(`href="${SAMPLE_LINKS.invoice}"`);
    expect(en.html).toContain('<html lang="en">');

    const fr = sampleEmail({ ...base, locale: "fr" });
    expect(fr.subject).toBe("Facture ACME-0042 de Acme Tools");
    expect(fr.text).toContain("Montant: 1\u00a0234,50\u00a0€");
    expect(fr.text).toContain("Échéance: 31 mars 2026");

    const de = sampleEmail({ ...base, locale: "de" });
    expect(de.subject).toBe("Rechnung ACME-0042 von Acme Tools");
    expect(de.text).toContain("Betrag: 1.234,50\u00a0€");
    expect(de.text).toContain("Fällig: 31. März 2026");
  });

  it("each type's own facts: the credit note's number, the retry date, the subscription dates, the portal link", () => {
    expect(sampleEmail({ ...base, type: "credit_note" }).subject).toBe("Credit note ACME-CN-0007 from Acme Tools");
    expect(sampleEmail({ ...base, type: "payment_failed" }).text).toContain("Next attempt: March 4, 2026");
    expect(sampleEmail({ ...base, type: "trial_ending" }).text).toContain("Trial ends: March 4, 2026");
    expect(sampleEmail({ ...base, type: "subscription_cancelled", locale: "de" }).text).toContain("Gekündigt am: 1. März 2026");
    const renewal = sampleEmail({ ...base, type: "upcoming_renewal", currency: "jpy" });
    expect(renewal.text).toContain("Renews on: March 4, 2026");
    expect(renewal.text).toContain("Amount: ¥1,234");
    const portal = sampleEmail({ ...base, type: "portal_link", locale: "fr" });
    expect(portal.subject).toBe("Votre lien de connexion à Acme Tools");
    expect(portal.text).toContain(`Se connecter: ${SAMPLE_LINKS.portal}`);
    expect(sampleEmail({ ...base, type: "test" }).html).not.toContain("<a href=\"https://");
  });

  it("every switchable type is branded: the seller's name, the brand colour, the support address, in HTML and text", () => {
    for (const type of SWITCHABLE_EMAIL_TYPES) {
      const sample = sampleEmail({ ...base, type });
      expect(sample.subject, type).toContain("Acme Tools");
      expect(sample.html, type).toContain("color:#12ab34");
      expect(sample.html, type).toContain('href="mailto:help@acme.test"');
      expect(sample.text.split("\n")[0], type).toBe("Acme Tools");
      expect(sample.text, type).toContain("Questions? Write to help@acme.test");
    }
  });

  it("the seller's name is escaped in HTML, and a brand colour that is not #RRGGBB falls back to the default", () => {
    const sample = sampleEmail({ ...base, branding: { seller: 'Acme <b>"Tools"</b>', supportEmail: null, brandColor: "red;background:url(x)" } });
    expect(sample.html).toContain("Acme &lt;b&gt;&quot;Tools&quot;&lt;/b&gt;");
    expect(sample.html).not.toContain("<b>");
    expect(sample.html).toContain(`color:${DEFAULT_BRAND_COLOR}`);
    expect(sample.html).not.toContain("url(x)");
    expect(sample.text).not.toContain("Questions?");
  });
});
