import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { TaxRate, TaxRateCreateInput, TaxRateList, TaxRateListQuery, TaxRateUpdateInput } from "./schema";

const tag = "Tax rates";

export const listTaxRatesOperation = defineOperation({
  operationId: "listTaxRates",
  method: "GET",
  path: "/{account_id}/tax-rates",
  unscopedPath: "/tax-rates",
  summary: "List tax rates",
  description: "The account's tax rates, newest first; `active` filters archived ones in or out.",
  tag,
  access: "secret",
  permission: needs("prices_products", "read"),
  query: TaxRateListQuery,
  response: { status: 200, description: "A page of tax rates.", schema: TaxRateList },
});

export const createTaxRateOperation = defineOperation({
  operationId: "createTaxRate",
  method: "POST",
  path: "/{account_id}/tax-rates",
  unscopedPath: "/tax-rates",
  summary: "Create a tax rate",
  description: "Emits `tax_rate.created`. `percentage` and `inclusive` are fixed once created (as in Stripe): make a new rate to change them.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: TaxRateCreateInput,
  response: { status: 201, description: "The created tax rate.", schema: TaxRate },
  errors: [415, 422],
});

export const getTaxRateOperation = defineOperation({
  operationId: "getTaxRate",
  method: "GET",
  path: "/{account_id}/tax-rates/{tax_rate_id}",
  unscopedPath: "/tax-rates/{tax_rate_id}",
  summary: "Retrieve a tax rate",
  description: "Archived rates too.",
  tag,
  access: "secret",
  permission: needs("prices_products", "read"),
  response: { status: 200, description: "The tax rate.", schema: TaxRate },
  errors: [404],
});

export const updateTaxRateOperation = defineOperation({
  operationId: "updateTaxRate",
  method: "POST",
  path: "/{account_id}/tax-rates/{tax_rate_id}",
  unscopedPath: "/tax-rates/{tax_rate_id}",
  summary: "Update or archive a tax rate",
  description:
    "Emits `tax_rate.updated` when anything changed. `active: false` archives the rate: new invoice lines and defaults cannot name it; invoices and subscriptions that use it keep it.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: TaxRateUpdateInput,
  response: { status: 200, description: "The updated tax rate.", schema: TaxRate },
  errors: [404, 415, 422],
});

export const taxRateOperations = [listTaxRatesOperation, createTaxRateOperation, getTaxRateOperation, updateTaxRateOperation];
