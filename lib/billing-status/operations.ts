import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { BillingStatus, BillingStatusUpdateInput, OperatorBillingStatus } from "./schema";

export const getBillingStatusOperation = defineOperation({
  operationId: "getBillingStatus",
  method: "GET",
  path: "/{account_id}/billing-status",
  unscopedPath: "/billing-status",
  summary: "Retrieve the account's billing status",
  description:
    "Whether the account's organization may process customer-initiated (CIT) and merchant-initiated (MIT) payments. Publishable tokens may call it.",
  tag: "Billing status",
  access: "publishable",
  permission: needs("settings", "read"),
  response: { status: 200, description: "The billing status.", schema: BillingStatus },
});

export const updateBillingStatusOperation = defineOperation({
  operationId: "updateBillingStatus",
  method: "POST",
  path: "/{account_id}/billing-status",
  summary: "Switch an organization's payment processing (operators)",
  description:
    "Platform operators only: a secret token of the platform organization, on the path of any merchant account. Sets `cit_processing_enabled`, `mit_processing_enabled` and `billing_exempt` of the organization that owns the account (all optional; an empty body changes nothing) and answers the billing status with the platform objects that bill it. Any other token: 403.",
  tag: "Billing status",
  access: "operator",
  body: BillingStatusUpdateInput,
  response: { status: 200, description: "The billing status after the change, with the operator's fields.", schema: OperatorBillingStatus },
  errors: [404],
});

export const billingStatusOperations = [getBillingStatusOperation, updateBillingStatusOperation];
