import type { DomainManifest } from "@/lib/manifest";

/** Emails' ids and events, for the generated registries (lib/manifest.ts). */
export const manifest = {
  ids: { email: "eml_" },
  events: [
    {
      // Transactional email (docs/emails.md): our own namespace.
      group: "Email",
      aggregateType: "email",
      schema: "Email",
      idKind: "email",
      weight: 0.5,
      types: {
        "email.sent":
          "An email to a customer (a receipt, an invoice, …) was accepted by the SMTP server (or, without SMTP_URL, written as a file); `smtp_response` is its answer.",
        "email.failed":
          "An email could not be sent: the SMTP server refused it permanently (5xx), temporary refusals outlasted the retries, it could not be rendered, or the account's hourly limit refused it (`status: rate_limited`). `smtp_response` says why.",
      },
    },
  ],
} satisfies DomainManifest;
