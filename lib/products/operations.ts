import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import {
  DeletedProduct,
  Product,
  ProductCreateInput,
  ProductList,
  ProductListQuery,
  ProductUpdateInput,
} from "./schema";

const tag = "Products";

export const listProductsOperation = defineOperation({
  operationId: "listProducts",
  method: "GET",
  path: "/{account_id}/products",
  unscopedPath: "/products",
  summary: "List products",
  description: "Products of the account, newest first; `active` filters active or archived ones. Publishable tokens may call it.",
  tag,
  access: "publishable",
  permission: needs("prices_products", "read"),
  query: ProductListQuery,
  response: { status: 200, description: "A page of products.", schema: ProductList },
});

export const createProductOperation = defineOperation({
  operationId: "createProduct",
  method: "POST",
  path: "/{account_id}/products",
  unscopedPath: "/products",
  summary: "Create a product",
  description: "Emits `product.created`. A missing `name` is a 400 naming it.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: ProductCreateInput,
  response: { status: 201, description: "The created product.", schema: Product },
  errors: [415, 422],
});

export const getProductOperation = defineOperation({
  operationId: "getProduct",
  method: "GET",
  path: "/{account_id}/products/{product_id}",
  unscopedPath: "/products/{product_id}",
  summary: "Retrieve a product",
  description: "Publishable tokens may call it.",
  tag,
  access: "publishable",
  permission: needs("prices_products", "read"),
  response: { status: 200, description: "The product.", schema: Product },
  errors: [404],
});

export const updateProductOperation = defineOperation({
  operationId: "updateProduct",
  method: "POST",
  path: "/{account_id}/products/{product_id}",
  unscopedPath: "/products/{product_id}",
  summary: "Update or archive a product",
  description:
    "Emits `product.updated` when anything changed (archiving is `active: false`); an update that changes nothing emits no event.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  body: ProductUpdateInput,
  response: { status: 200, description: "The updated product.", schema: Product },
  errors: [404, 415, 422],
});

export const deleteProductOperation = defineOperation({
  operationId: "deleteProduct",
  method: "DELETE",
  path: "/{account_id}/products/{product_id}",
  unscopedPath: "/products/{product_id}",
  summary: "Delete a product",
  description:
    "Emits `product.deleted`. Refused with 409 while the product has prices that are not deleted: archive it instead, or delete its prices first.",
  tag,
  access: "secret",
  permission: needs("prices_products", "write"),
  response: { status: 200, description: "The deleted product's id.", schema: DeletedProduct },
  errors: [404, 409],
});

export const productOperations = [
  listProductsOperation,
  createProductOperation,
  getProductOperation,
  updateProductOperation,
  deleteProductOperation,
];
