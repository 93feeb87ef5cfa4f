import { needs } from "@/lib/permissions";
import type { RefundObject } from "./schema";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import { Refund, RefundCreateInput, RefundList, RefundListQuery } from "./schema";

const tag = "Refunds";

export const listRefundsOperation = defineOperation({
  operationId: "listRefunds",
  method: "GET",
  path: "/{account_id}/refunds",
  unscopedPath: "/refunds",
  summary: "List refunds",
  description: "Newest first; filter `payment`.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "read"),
  query: RefundListQuery,
  response: { status: 200, description: "A page of refunds.", schema: RefundList },
});

export const createRefundOperation = defineOperation({
  operationId: "createRefund",
  method: "POST",
  path: "/{account_id}/refunds",
  unscopedPath: "/refunds",
  summary: "Refund a payment",
  description:
    "Emits `refund.created`, then `refund.updated` (succeeded) and `payment.refunded`, or `refund.failed` (payments made with `pm_sandbox_refund_fails`). `amount_atom` defaults to the unrefunded rest; more is a 422; a failed or fully refunded payment is a 409.",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "write"),
  body: RefundCreateInput,
  response: { status: 201, description: "The refund, settled.", schema: Refund },
  errors: [409, 415, 422],
});

export const getRefundOperation = defineOperation({
  operationId: "getRefund",
  method: "GET",
  path: "/{account_id}/refunds/{refund_id}",
  unscopedPath: "/refunds/{refund_id}",
  summary: "Retrieve a refund",
  tag,
  access: "secret",
  permission: needs("payments_refunds", "read"),
  response: { status: 200, description: "The refund.", schema: Refund },
  errors: [404],
});

/** The refunds export's CSV columns (docs/api.md, "Exports"): stable, appended to, never reordered. */
const REFUND_EXPORT: ExportColumns<RefundObject> = {
  columns: fieldColumns<RefundObject>([
    "id", "payment", "status", "currency", "amount_atom", "reason", "failure_reason", "metadata", "livemode", "created", "updated",
  ]),
};

export const exportRefundsOperation = defineExportOperation(listRefundsOperation, { operationId: "exportRefunds", plural: "refunds", columns: REFUND_EXPORT });

export const refundOperations = [listRefundsOperation, exportRefundsOperation, createRefundOperation, getRefundOperation];
