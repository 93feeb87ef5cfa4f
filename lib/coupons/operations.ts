import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { Coupon, CouponCreateInput, CouponList, CouponListQuery, CouponUpdateInput, DeletedCoupon } from "./schema";

const tag = "Coupons";

export const listCouponsOperation = defineOperation({
  operationId: "listCoupons",
  method: "GET",
  path: "/{account_id}/coupons",
  unscopedPath: "/coupons",
  summary: "List coupons",
  description: "Coupons of the account that are not deleted, newest first.",
  tag,
  access: "secret",
  permission: needs("prices_products", "read"),
  query: CouponListQuery,
  response: { status: 200, description: "A page of coupons.", schema: CouponList },
});

export const createCouponOperation = defineOperation({
  operationId: "createCoupon",
  method: "POST",
  path: "/{account_id}/coupons",
  unscopedPath: "/coupons",
  summary: "Create a coupon",
  description:
    "Emits `coupon.created`. Exactly one of `percent_off` or `amount_off_atom` (with `currency`); " +
    "`duration_in_months` only with `duration: repeating`. A missing required field is a 400 naming it, " +
    "a conflicting one a 422.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: CouponCreateInput,
  response: { status: 201, description: "The created coupon.", schema: Coupon },
  errors: [415, 422],
});

export const getCouponOperation = defineOperation({
  operationId: "getCoupon",
  method: "GET",
  path: "/{account_id}/coupons/{coupon_id}",
  unscopedPath: "/coupons/{coupon_id}",
  summary: "Retrieve a coupon",
  tag,
  access: "secret",
  permission: needs("prices_products", "read"),
  response: { status: 200, description: "The coupon.", schema: Coupon },
  errors: [404],
});

export const updateCouponOperation = defineOperation({
  operationId: "updateCoupon",
  method: "POST",
  path: "/{account_id}/coupons/{coupon_id}",
  unscopedPath: "/coupons/{coupon_id}",
  summary: "Update a coupon",
  description:
    "Only `name` and `metadata` can change (the terms are immutable: 422). Emits `coupon.updated` when " +
    "anything changed.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: CouponUpdateInput,
  response: { status: 200, description: "The updated coupon.", schema: Coupon },
  errors: [404, 415, 422],
});

export const deleteCouponOperation = defineOperation({
  operationId: "deleteCoupon",
  method: "DELETE",
  path: "/{account_id}/coupons/{coupon_id}",
  unscopedPath: "/coupons/{coupon_id}",
  summary: "Delete a coupon",
  description:
    "Emits `coupon.deleted`. The coupon can no longer be applied or retrieved; discounts already applied keep it.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  response: { status: 200, description: "The deleted coupon's id.", schema: DeletedCoupon },
  errors: [404],
});

export const couponOperations = [
  listCouponsOperation,
  createCouponOperation,
  getCouponOperation,
  updateCouponOperation,
  deleteCouponOperation,
];
