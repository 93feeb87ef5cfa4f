import { needs } from "@/lib/permissions";
import { defineOperation } from "@/lib/api/operation";
import { BalanceTransactionCreateInput, BalanceTransactionListQuery, CustomerBalanceTransaction, CustomerBalanceTransactionList } from "./schema";

const tag = "Customer balance";

export const listCustomerBalanceTransactionsOperation = defineOperation({
  operationId: "listCustomerBalanceTransactions",
  method: "GET",
  path: "/{account_id}/customers/{customer_id}/balance-transactions",
  unscopedPath: "/customers/{customer_id}/balance-transactions",
  summary: "List a customer's balance transactions",
  description: "The ledger of the customer's balance, newest first; filter `currency`. Per currency, the amounts sum to `balances[currency]` of the customer.",
  tag,
  access: "secret",
  permission: needs("customers", "read"),
  query: BalanceTransactionListQuery,
  response: { status: 200, description: "A page of balance transactions.", schema: CustomerBalanceTransactionList },
  errors: [404],
});

export const createCustomerBalanceTransactionOperation = defineOperation({
  operationId: "createCustomerBalanceTransaction",
  method: "POST",
  path: "/{account_id}/customers/{customer_id}/balance-transactions",
  unscopedPath: "/customers/{customer_id}/balance-transactions",
  summary: "Adjust a customer's balance",
  description:
    "A manual adjustment: positive credits the customer, negative debits. The balance is applied to the customer's next invoice finalized in that currency. Emits `customer.balance_transaction.created`.",
  tag,
  access: "secret",
  permission: needs("customers", "write"),
  body: BalanceTransactionCreateInput,
  response: { status: 201, description: "The balance transaction.", schema: CustomerBalanceTransaction },
  errors: [404, 415, 422],
});

export const customerBalanceOperations = [listCustomerBalanceTransactionsOperation, createCustomerBalanceTransactionOperation];
