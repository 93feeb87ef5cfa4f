import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { InvoicePreview, InvoicePreviewInput } from "./preview-schema";

/*
 * Operations of the flows that span invoices and subscriptions (docs/ARCHITECTURE.md, "Who may
 * import whom"). Listed in lib/server/operations-index.ts right after the invoices' own.
 */

const tag = "Invoices";

export const previewInvoiceOperation = defineOperation({
  operationId: "previewInvoice",
  method: "POST",
  path: "/{account_id}/invoices/preview",
  unscopedPath: "/invoices/preview",
  summary: "Preview the next invoice of a subscription",
  description:
    "The invoice the subscription's next renewal (at `current_period_end`) would finalize, computed as the renewal does and stored nowhere (no invoice, no event, no balance transaction): the items after the pending changes, the usage of metered items so far, the customer's discount in force then, the taxes, and the customer's balance. With `changes` (a change request's `steps` and `effective`), as if that change were applied at `proration_date`: `proration_invoice` is what applying it would collect at once, and the renewal bills the items after it. Unknown customer or subscription: 404; a subscription of another customer, or a customer without exactly one live subscription and none named: 422; a step refused as a change request would refuse it: 400/422 naming `changes.steps.N.field`; a cancelled or paused subscription, or one ending at the period end: 409.",
  tag,
  access: "secret",
  permission: needs("invoices", "read"),
  body: InvoicePreviewInput,
  response: { status: 200, description: "The preview (`id` null, `status` draft).", schema: InvoicePreview },
  errors: [404, 409, 415, 422],
});

export const flowOperations = [previewInvoiceOperation];
