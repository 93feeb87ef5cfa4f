import { defineOperation } from "@/lib/api/operation";
import { BillingStatus } from "./schema";

export const getBillingStatusOperation = defineOperation({
  operationId: "getBillingStatus",
  method: "GET",
  path: "/{account_id}/billing-status",
  summary: "Retrieve the account's billing status",
  description:
    "Whether the account's organization may process customer-initiated (CIT) and merchant-initiated (MIT) payments. Publishable tokens may call it.",
  tag: "Billing status",
  access: "publishable",
  response: { status: 200, description: "The billing status.", schema: BillingStatus },
});
