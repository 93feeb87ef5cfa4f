import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { DeletedDiscount, Discount, DiscountApplyInput } from "./schema";

const tag = "Discounts";

export const applyDiscountOperation = defineOperation({
  operationId: "applyCustomerDiscount",
  method: "POST",
  path: "/{account_id}/customers/{customer_id}/discount",
  unscopedPath: "/customers/{customer_id}/discount",
  summary: "Apply a coupon to a customer",
  description:
    "Counts a redemption of the coupon. A customer has at most one discount: applying a coupon replaces " +
    "the current one (`customer.discount.updated`), else creates it (`customer.discount.created`). " +
    "A coupon that is unknown, deleted, past `redeem_by` or at `max_redemptions` is a 422 naming `coupon`.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  body: DiscountApplyInput,
  response: { status: 200, description: "The customer's discount.", schema: Discount },
  errors: [404, 415, 422],
});

export const getDiscountOperation = defineOperation({
  operationId: "getCustomerDiscount",
  method: "GET",
  path: "/{account_id}/customers/{customer_id}/discount",
  unscopedPath: "/customers/{customer_id}/discount",
  summary: "Retrieve a customer's discount",
  description: "404 when the customer has none.",
  tag,
  access: "secret",
  permission: needs("customers", "read"),
  response: { status: 200, description: "The customer's discount.", schema: Discount },
  errors: [404],
});

export const deleteDiscountOperation = defineOperation({
  operationId: "deleteCustomerDiscount",
  method: "DELETE",
  path: "/{account_id}/customers/{customer_id}/discount",
  unscopedPath: "/customers/{customer_id}/discount",
  summary: "Remove a customer's discount",
  description: "Emits `customer.discount.deleted`. The redemption stays counted on the coupon.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  response: { status: 200, description: "The removed discount's id.", schema: DeletedDiscount },
  errors: [404],
});

export const discountOperations = [applyDiscountOperation, getDiscountOperation, deleteDiscountOperation];
