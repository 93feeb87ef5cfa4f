import { and, eq, getTableName, isNull, type SQL } from "drizzle-orm";
import type { PgColumn, PgTable } from "drizzle-orm/pg-core";
import {
  apiTokens,
  checkoutSessions,
  coupons,
  customers,
  eventDeliveries,
  invoices,
  paymentIntents,
  payments,
  prices,
  products,
  refunds,
  subscriptions,
  webhookEndpoints,
} from "./schema";

/** A table a list pages through: newest first by `(created, id)`. */
export type ListedTable = PgTable & { created: PgColumn; id: PgColumn };

/**
 * What a list shows, declared once: the services filter with it (listQuery in db/page.ts) and the
 * statement triggers that keep its totals are generated from it (db/list-triggers.ts, the latest
 * migration it wrote). Changing a declaration without a new migration fails
 * tests/unit/list-triggers.test.ts.
 */
export type ListDeclaration<T extends ListedTable = ListedTable> = {
  table: T;
  /** Whose rows they are: the account's, or the endpoint's for an endpoint's deliveries. */
  scope: PgColumn;
  /**
   * Which of the scope's rows the list shows (none: all of them). Columns of `table` only, and no
   * parameter: the same text is the trigger's condition.
   */
  shown?: SQL;
  /**
   * Filters with totals of their own, by query name: the triggers keep a total under each
   * combination of their values (the key `name=value&…`, sorted by name).
   */
  keys: Record<string, PgColumn>;
  /**
   * Filters on a parent (a customer's invoices, a payment's refunds…), by query name: no totals of
   * their own, a list filtered so counts the parent's index range (a parent's children are few).
   */
  parents: Record<string, PgColumn>;
};

function declareList<T extends ListedTable, K extends Record<string, PgColumn>, P extends Record<string, PgColumn>>(
  declaration: { table: T; scope: PgColumn; shown?: SQL; keys: K; parents: P },
): { table: T; scope: PgColumn; shown?: SQL; keys: K; parents: P } {
  return declaration;
}

/** An account's objects of a customer with a status (all of them listed): totals per status. */
function statusesByCustomer<T extends ListedTable & { accountId: PgColumn; status: PgColumn; customerId: PgColumn }>(table: T) {
  return declareList({ table, scope: table.accountId, keys: { status: table.status }, parents: { customer: table.customerId } });
}

/** Every list whose totals the triggers keep (the events' are lib/events/counts.ts's), by name. */
export const LIST_DECLARATIONS = {
  // Revoked tokens stay listed (with their status).
  api_tokens: declareList({ table: apiTokens, scope: apiTokens.accountId, keys: {}, parents: {} }),
  coupons: declareList({ table: coupons, scope: coupons.accountId, shown: isNull(coupons.deletedAt), keys: {}, parents: {} }),
  webhook_endpoints: declareList({
    table: webhookEndpoints,
    scope: webhookEndpoints.accountId,
    shown: isNull(webhookEndpoints.deletedAt),
    keys: {},
    parents: {},
  }),
  customers: declareList({ table: customers, scope: customers.accountId, shown: isNull(customers.deletedAt), keys: {}, parents: {} }),
  products: declareList({
    table: products,
    scope: products.accountId,
    shown: isNull(products.deletedAt),
    keys: { active: products.active },
    parents: {},
  }),
  prices: declareList({
    table: prices,
    scope: prices.accountId,
    shown: isNull(prices.deletedAt),
    keys: { active: prices.active, type: prices.type },
    parents: { product: prices.productId },
  }),
  invoices: statusesByCustomer(invoices),
  subscriptions: statusesByCustomer(subscriptions),
  payment_intents: statusesByCustomer(paymentIntents),
  payments: declareList({ table: payments, scope: payments.accountId, keys: {}, parents: { payment_intent: payments.paymentIntentId } }),
  refunds: declareList({ table: refunds, scope: refunds.accountId, keys: {}, parents: { payment: refunds.paymentId } }),
  checkout_sessions: declareList({
    table: checkoutSessions,
    scope: checkoutSessions.accountId,
    shown: isNull(checkoutSessions.deletedAt),
    keys: { status: checkoutSessions.status },
    parents: { customer: checkoutSessions.customerId },
  }),
  // An endpoint's deliveries: the endpoint is the account's (its service reads it first), so the
  // list needs no account condition, which would make a deep offset read every skipped row.
  event_deliveries: declareList({
    table: eventDeliveries,
    scope: eventDeliveries.webhookEndpointId,
    keys: { status: eventDeliveries.status },
    parents: {},
  }),
};

export type ListName = keyof typeof LIST_DECLARATIONS;
type Declared<N extends ListName> = (typeof LIST_DECLARATIONS)[N];
type ValueOf<C> = C extends PgColumn ? C["_"]["data"] : never;

/** A request's filters of list N: its keys' and its parents', each optional. */
export type ListFilters<N extends ListName> = {
  [F in keyof Declared<N>["keys"] | keyof Declared<N>["parents"]]?: F extends keyof Declared<N>["keys"]
    ? ValueOf<Declared<N>["keys"][F]>
    : F extends keyof Declared<N>["parents"]
      ? ValueOf<Declared<N>["parents"][F]>
      : never;
};

/** The rows of `declaration`'s list in `scopeId` that match `filters` (an undefined one: any). */
export function shownRows(declaration: ListDeclaration, scopeId: string, filters: Record<string, unknown>): SQL {
  const columns: Record<string, PgColumn> = { ...declaration.keys, ...declaration.parents };
  const matching = Object.entries(filters).flatMap(([name, value]) => {
    if (value === undefined) return [];
    const column = columns[name];
    if (!column) throw new Error(`The list of ${getTableName(declaration.table)} has no filter '${name}'.`);
    return [eq(column, value)];
  });
  return and(eq(declaration.scope, scopeId), declaration.shown, ...matching)!;
}

/** Whether `filters` name a parent: such a list counts the parent's index range, not totals. */
export function filtersByParent(declaration: ListDeclaration, filters: Record<string, unknown>): boolean {
  return Object.keys(declaration.parents).some((name) => filters[name] !== undefined);
}

/** The key of the totals `filters` are counted under: the keys' `name=value`, sorted, `&`-joined. */
export function countKey(declaration: ListDeclaration, filters: Record<string, unknown>): string {
  return Object.keys(declaration.keys)
    .sort()
    .filter((name) => filters[name] !== undefined)
    .map((name) => `${name}=${String(filters[name])}`)
    .join("&");
}
