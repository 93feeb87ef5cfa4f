import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { CreditGrant, CreditGrantApplicationList, CreditGrantCreateInput, CreditGrantList, CreditGrantListQuery } from "./schema";

const tag = "Credit grants";

export const createCreditGrantOperation = defineOperation({
  operationId: "createCreditGrant",
  method: "POST",
  path: "/{account_id}/credit-grants",
  unscopedPath: "/credit-grants",
  summary: "Grant credit",
  description:
    "Grants `amount_atom` of `currency` to a customer. From `effective_at` (default now) until `expires_at`, it pays the eligible lines of the customer's invoices in that currency at their finalization, before the customer balance and before collection: every line (`applies_to: \"all\"`) or the metered lines of the named meters. Grants apply by `priority`, then the earliest expiry. Credits pay a line's amount after its discount, never exclusive taxes. An unknown customer or meter, or `expires_at` not after `effective_at`, is a 422. Emits `credit_grant.created`.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  body: CreditGrantCreateInput,
  response: { status: 201, description: "The grant.", schema: CreditGrant },
  errors: [400, 415, 422],
});

export const listCreditGrantsOperation = defineOperation({
  operationId: "listCreditGrants",
  method: "GET",
  path: "/{account_id}/credit-grants",
  unscopedPath: "/credit-grants",
  summary: "List credit grants",
  description: "Newest first; filter `customer`.",
  tag,
  access: "secret",
  permission: needs("customers", "read"),
  query: CreditGrantListQuery,
  response: { status: 200, description: "A page of credit grants.", schema: CreditGrantList },
});

export const getCreditGrantOperation = defineOperation({
  operationId: "getCreditGrant",
  method: "GET",
  path: "/{account_id}/credit-grants/{credit_grant_id}",
  unscopedPath: "/credit-grants/{credit_grant_id}",
  summary: "Retrieve a credit grant",
  tag,
  access: "secret",
  permission: needs("customers", "read"),
  response: { status: 200, description: "The grant.", schema: CreditGrant },
  errors: [404],
});

export const listCreditGrantApplicationsOperation = defineOperation({
  operationId: "listCreditGrantApplications",
  method: "GET",
  path: "/{account_id}/credit-grants/{credit_grant_id}/applications",
  unscopedPath: "/credit-grants/{credit_grant_id}/applications",
  summary: "List a credit grant's applications",
  description: "The grant's ledger, oldest first, in one page: what it paid on which invoice line. Σ of the amounts + `remaining_atom` = `amount_atom`.",
  tag,
  access: "secret",
  permission: needs("customers", "read"),
  response: { status: 200, description: "The grant's applications.", schema: CreditGrantApplicationList },
  errors: [404],
});

export const voidCreditGrantOperation = defineOperation({
  operationId: "voidCreditGrant",
  method: "POST",
  path: "/{account_id}/credit-grants/{credit_grant_id}/void",
  unscopedPath: "/credit-grants/{credit_grant_id}/void",
  summary: "Void a credit grant",
  description: "What remains of the grant never applies again; what it already paid stays paid. An expired or voided grant is a 409. Emits `credit_grant.voided`.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  response: { status: 200, description: "The voided grant.", schema: CreditGrant },
  errors: [404, 409],
});

export const creditGrantOperations = [
  createCreditGrantOperation,
  listCreditGrantsOperation,
  getCreditGrantOperation,
  listCreditGrantApplicationsOperation,
  voidCreditGrantOperation,
];
