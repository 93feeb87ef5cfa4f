import { needs } from "@/lib/permissions";
import type { CustomerObject } from "./schema";
import { defineExportOperation, fieldColumns, type ExportColumns } from "@/lib/api/export";
import { defineOperation } from "@/lib/api/operation";
import {
  Customer,
  CustomerCreateInput,
  CustomerExpandQuery,
  CustomerGetQuery,
  CustomerList,
  CustomerListQuery,
  CustomerUpdateInput,
  DeletedCustomer,
} from "./schema";

const tag = "Customers";

export const listCustomersOperation = defineOperation({
  operationId: "listCustomers",
  method: "GET",
  path: "/{account_id}/customers",
  unscopedPath: "/customers",
  summary: "List customers",
  description: "Customers of the account, newest first.",
  tag,
  access: "secret",
  permission: needs("customers", "read"),
  query: CustomerListQuery,
  response: { status: 200, description: "A page of customers.", schema: CustomerList },
});

export const createCustomerOperation = defineOperation({
  operationId: "createCustomer",
  method: "POST",
  path: "/{account_id}/customers",
  unscopedPath: "/customers",
  summary: "Create a customer",
  description: "Emits `customer.created`. A missing `email` is a 400 naming it.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  query: CustomerExpandQuery,
  body: CustomerCreateInput,
  response: { status: 201, description: "The created customer.", schema: Customer },
  errors: [415, 422],
});

export const getCustomerOperation = defineOperation({
  operationId: "getCustomer",
  method: "GET",
  path: "/{account_id}/customers/{customer_id}",
  unscopedPath: "/customers/{customer_id}",
  summary: "Retrieve a customer",
  description:
    "With `expand=custom_fields` the custom field values are included; with `expand=discount` the customer's discount " +
    "(null when they have none, where `getCustomerDiscount` answers 404).",
  tag,
  access: "secret",
  permission: needs("customers", "read"),
  query: CustomerGetQuery,
  response: { status: 200, description: "The customer.", schema: Customer },
  errors: [404],
});

export const updateCustomerOperation = defineOperation({
  operationId: "updateCustomer",
  method: "POST",
  path: "/{account_id}/customers/{customer_id}",
  unscopedPath: "/customers/{customer_id}",
  summary: "Update a customer",
  description: "Emits `customer.updated` when anything changed; an update that changes nothing emits no event.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  query: CustomerExpandQuery,
  body: CustomerUpdateInput,
  response: { status: 200, description: "The updated customer.", schema: Customer },
  errors: [404, 415, 422],
});

export const deleteCustomerOperation = defineOperation({
  operationId: "deleteCustomer",
  method: "DELETE",
  path: "/{account_id}/customers/{customer_id}",
  unscopedPath: "/customers/{customer_id}",
  summary: "Delete a customer",
  description: "Emits `customer.deleted`. The customer is no longer served; its events remain.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  response: { status: 200, description: "The deleted customer's id.", schema: DeletedCustomer },
  errors: [404],
});

/** The customers export's CSV columns (docs/api.md, "Exports"): stable, appended to, never reordered. */
const CUSTOMER_EXPORT: ExportColumns<CustomerObject> = {
  columns: fieldColumns<CustomerObject>([
    "id", "email", "name", "preferred_locale", "default_tax_rate", "tax_ids", "invoice_emails", "address", "balances",
    "metadata", "livemode", "created", "updated",
  ]),
};

export const exportCustomersOperation = defineExportOperation(listCustomersOperation, { operationId: "exportCustomers", plural: "customers", columns: CUSTOMER_EXPORT });

export const customerOperations = [
  listCustomersOperation,
  exportCustomersOperation,
  createCustomerOperation,
  getCustomerOperation,
  updateCustomerOperation,
  deleteCustomerOperation,
];
