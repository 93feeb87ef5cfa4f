import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { DeletedPrice, Price, PriceCreateInput, PriceList, PriceListQuery, PriceUpdateInput } from "./schema";

const tag = "Prices";

export const listPricesOperation = defineOperation({
  operationId: "listPrices",
  method: "GET",
  path: "/{account_id}/prices",
  unscopedPath: "/prices",
  summary: "List prices",
  description:
    "Prices of the account, newest first; filters `product`, `active`, `type`. Publishable tokens may call it.",
  tag,
  access: "publishable",
  permission: needs("prices_products", "read"),
  query: PriceListQuery,
  response: { status: 200, description: "A page of prices.", schema: PriceList },
});

export const createPriceOperation = defineOperation({
  operationId: "createPrice",
  method: "POST",
  path: "/{account_id}/prices",
  unscopedPath: "/prices",
  summary: "Create a price",
  description:
    "Emits `price.created`. `product` must be a product of this account (422 otherwise); `recurring` is required exactly when `type` is `recurring`.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: PriceCreateInput,
  response: { status: 201, description: "The created price.", schema: Price },
  errors: [415, 422],
});

export const getPriceOperation = defineOperation({
  operationId: "getPrice",
  method: "GET",
  path: "/{account_id}/prices/{price_id}",
  unscopedPath: "/prices/{price_id}",
  summary: "Retrieve a price",
  description: "Publishable tokens may call it.",
  tag,
  access: "publishable",
  permission: needs("prices_products", "read"),
  response: { status: 200, description: "The price.", schema: Price },
  errors: [404],
});

export const updatePriceOperation = defineOperation({
  operationId: "updatePrice",
  method: "POST",
  path: "/{account_id}/prices/{price_id}",
  unscopedPath: "/prices/{price_id}",
  summary: "Update or archive a price",
  description:
    "Only `nickname`, `active` and `metadata` change; amount, currency, type and recurring are immutable (422: create a new price instead). Emits `price.updated` when anything changed.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: PriceUpdateInput,
  response: { status: 200, description: "The updated price.", schema: Price },
  errors: [404, 415, 422],
});

export const deletePriceOperation = defineOperation({
  operationId: "deletePrice",
  method: "DELETE",
  path: "/{account_id}/prices/{price_id}",
  unscopedPath: "/prices/{price_id}",
  summary: "Delete a price",
  description: "Emits `price.deleted`. The price is no longer served or listed; its events remain.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  response: { status: 200, description: "The deleted price's id.", schema: DeletedPrice },
  errors: [404],
});

export const priceOperations = [
  listPricesOperation,
  createPriceOperation,
  getPriceOperation,
  updatePriceOperation,
  deletePriceOperation,
];
