import { asc, eq, getTableColumns, sql, type Column, type InferSelectModel, type SQL, type Table } from "drizzle-orm";
import fc from "fast-check";
import { getDb } from "@/db/client";
import { rowsOf } from "@/lib/rows";
import { creditNotes, customerBalanceTransactions, customers, invoiceLines, invoices, paymentIntents, payments, refunds, subscriptions } from "@/db/schema";
import {
  applyBalance,
  costOf,
  couponAppliesIn,
  creditLinePart,
  halfEven,
  invoiceAmounts,
  plusMonths,
  priceIn,
  proration,
  unitsPart,
  type InvoiceAmounts,
  type LineCredited,
  type ModelCoupon,
  type ModelLineTax,
  type ModelMultiPrice,
  type ModelPrice,
  type ModelRate,
} from "./billing-model";

/*
 * Random sequences of billing operations on one customer, an independent model of the money they
 * must produce (tests/helpers/billing-model.ts), and the invariants that must hold after every
 * step, read from the database itself. Two drivers run them: HTTP against the real server
 * (tests/api/credit-notes-property.test.ts) and the service verbs in-process
 * (tests/property/billing-property.ts, 10,000 sequences a run).
 *
 * After every step: the step's outcome is the model's (a refusal passes only where the model
 * refuses too), every amount of the customer's invoices, credit notes, payments and balance is
 * the model's, and every invariant of `checkInvariants` holds.
 */

export const PAY_METHODS = ["out_of_band", "pm_sandbox_succeeds", "pm_sandbox_partially_funded", "pm_sandbox_declined", "pm_sandbox_refund_fails"] as const;
export type PayMethod = (typeof PAY_METHODS)[number];
type CardMethod = Exclude<PayMethod, "out_of_band">;

/**
 * The currencies a sequence's customer may bill in: USD and EUR (2 decimals), JPY (none: 1 atom is
 * ¥1), BHD (3: 1 atom is 0.001 BHD). USD twice: the catalogue's own currency stays the common case.
 */
export const CURRENCIES = ["usd", "usd", "eur", "jpy", "bhd"] as const;
export type Currency = (typeof CURRENCIES)[number];

/** Tiers of [unit, flat] up to `bounds` (the same in every currency of a price), then the unbounded `last`. */
const tiersOf = (tiers: [number, number][], last: [number, number], bounds: readonly number[]) => [
  ...tiers.map(([unit, flat], index) => ({ upTo: bounds[index]!, unit, flat })),
  { upTo: null, unit: last[0], flat: last[1] },
];
const graduated = (tiers: [number, number][], last: [number, number], bounds: readonly number[]): ModelPrice => ({ scheme: "graduated", tiers: tiersOf(tiers, last, bounds) });
const volume = (tiers: [number, number][], last: [number, number], bounds: readonly number[]): ModelPrice => ({ scheme: "volume", tiers: tiersOf(tiers, last, bounds) });

/**
 * A lane's catalogue: what newLane creates, and the model's copy of each object's terms. Prices
 * carry currency options (docs/billing.md, "Currency options"), each amount the merchant's own in
 * atoms of its currency; some currencies are missing on purpose (a customer billed in them is
 * refused the price: 422), and one price's own currency is eur. Tiers keep their bounds in every
 * currency.
 */
export const CATALOGUE = {
  prices: [
    { currency: "usd", in: { usd: { scheme: "per_unit", unit: 1000 }, eur: { scheme: "per_unit", unit: 920 }, jpy: { scheme: "per_unit", unit: 1500 }, bhd: { scheme: "per_unit", unit: 3770 } } },
    { currency: "usd", in: { usd: { scheme: "per_unit", unit: 3000 }, eur: { scheme: "per_unit", unit: 2750 } } },
    { currency: "eur", in: { eur: { scheme: "per_unit", unit: 5000 }, usd: { scheme: "per_unit", unit: 5500 }, jpy: { scheme: "per_unit", unit: 8000 } } },
    {
      currency: "usd",
      in: {
        usd: graduated([[400, 100], [250, 0]], [100, 50], [5, 10]),
        jpy: graduated([[60, 15], [38, 0]], [15, 8], [5, 10]),
        bhd: graduated([[1505, 377], [943, 0]], [377, 189], [5, 10]),
      },
    },
    {
      currency: "usd",
      in: {
        usd: volume([[600, 0], [450, 300]], [350, 0], [5, 10]),
        eur: volume([[555, 0], [415, 275]], [325, 0], [5, 10]),
      },
    },
  ] as ModelMultiPrice[],
  taxRates: [
    { percentE4: 70_000, inclusive: false },
    { percentE4: 190_000, inclusive: false },
    { percentE4: 100_000, inclusive: true },
    { percentE4: 77_000, inclusive: true },
  ],
  coupons: [
    { duration: "once", months: null, percentBps: 5000 },
    { duration: "once", months: null, amountOff: 700, currency: "usd", options: { eur: 650, jpy: 100 } },
    { duration: "repeating", months: 3, percentBps: 2500 },
    { duration: "forever", months: null, percentBps: 1000 },
    { duration: "forever", months: null, amountOff: 300, currency: "usd", options: { bhd: 1130 } },
  ] as ModelCoupon[],
};

/**
 * The metered price a subscription may carry besides its licensed item (billed in arrears on the
 * renewal invoice, by its tiers: the first 10 units 12 each, every further one 5, plus 40 once
 * any unit passes 10), and the event name of its meter (aggregation sum, payload { value }).
 */
export const METERED = {
  price: { currency: "usd", in: { usd: graduated([[12, 0]], [5, 40], [10]), eur: graduated([[11, 0]], [5, 37], [10]), jpy: graduated([[2, 0]], [1, 6], [10]) } } as ModelMultiPrice,
  eventName: "property_units",
};

/**
 * A price's terms as the create operation takes them, with `currency_options` for every currency
 * it bills in besides its own (a tiered option repeats the tiers, bounds and all).
 */
export function priceTerms(price: ModelMultiPrice): object {
  const tiers = (terms: ModelPrice) => (terms.scheme === "per_unit" ? [] : terms.tiers.map((tier) => ({ up_to: tier.upTo, unit_amount_atom: tier.unit, flat_amount_atom: tier.flat })));
  const own = price.in[price.currency]!;
  const options = Object.entries(price.in).filter(([code]) => code !== price.currency);
  return {
    currency: price.currency,
    ...(own.scheme === "per_unit" ? { unit_amount_atom: own.unit } : { billing_scheme: "tiered", tiers_mode: own.scheme, tiers: tiers(own) }),
    ...(options.length === 0 ? {} : { currency_options: Object.fromEntries(options.map(([code, terms]) => [code, terms.scheme === "per_unit" ? { unit_amount_atom: terms.unit } : { tiers: tiers(terms) }])) }),
  };
}

/** A coupon's terms as the create operation takes them (an amount off with its `currency_options`). */
export function couponTerms(coupon: (typeof CATALOGUE.coupons)[number]): object {
  const duration = { duration: coupon.duration, ...(coupon.months === null ? {} : { duration_in_months: coupon.months }) };
  if ("percentBps" in coupon) return { ...duration, percent_off: coupon.percentBps / 100 };
  const options = Object.entries(coupon.options);
  return {
    ...duration,
    amount_off_atom: coupon.amountOff,
    currency: coupon.currency,
    ...(options.length === 0 ? {} : { currency_options: Object.fromEntries(options.map(([code, amount]) => [code, { amount_off_atom: amount }])) }),
  };
}

/** The ids of a lane's catalogue, in CATALOGUE's order; `metered`: METERED's price, where the driver reports usage. */
export type CatalogueIds = { prices: string[]; taxRates: string[]; coupons: string[]; metered?: string };

const arbMethod = fc.constantFrom(...PAY_METHODS);
const arbCurrency = fc.constantFrom(...CURRENCIES);
const arbCardMethod = fc.constantFrom<CardMethod>("pm_sandbox_succeeds", "pm_sandbox_partially_funded", "pm_sandbox_declined", "pm_sandbox_refund_fails");
const arbRates = fc.uniqueArray(fc.nat({ max: CATALOGUE.taxRates.length - 1 }), { maxLength: 2 });
const arbLine = fc.record({
  // CATALOGUE.prices' index, or a custom amount (the last value).
  source: fc.nat({ max: CATALOGUE.prices.length }),
  unitAmount: fc.integer({ min: 0, max: 5000 }),
  quantity: fc.integer({ min: 1, max: 12 }),
  rates: arbRates,
});

/** How often a renewal by the test clock is drawn: the dearest step (its clock advance runs every due transition of the lane's account). */
export const RENEW_WEIGHT = 1;

export const arbStep = fc.oneof(
  // Billed in the customer's currency (or the sequence's `wanted` one, which it then fixes); now and then in an explicit `currency` of its own (a one-off invoice may be).
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant("invoice" as const), lines: fc.array(arbLine, { minLength: 1, maxLength: 3 }), currency: fc.option(arbCurrency, { freq: 8, nil: null }) }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("pay" as const), target: fc.nat(), method: arbMethod }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("refund" as const), target: fc.nat(), amount: fc.integer({ min: 1, max: 3000 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("credit_note" as const),
      target: fc.nat(),
      byLines: fc.boolean(),
      amount: fc.integer({ min: 1, max: 4000 }),
      lines: fc.array(fc.record({ pick: fc.nat(), byQuantity: fc.boolean(), quantity: fc.integer({ min: 1, max: 12 }), amount: fc.integer({ min: 1, max: 5000 }) }), { minLength: 1, maxLength: 3 }),
      split: fc.tuple(fc.nat({ max: 100 }), fc.nat({ max: 100 })),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("void" as const), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("void_invoice" as const), target: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("adjust" as const), amount: fc.integer({ min: -2000, max: 2000 }).filter((value) => value !== 0) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("coupon" as const), coupon: fc.nat({ max: CATALOGUE.coupons.length - 1 }) }) },
  // The customer's currency changed (POST /customers/{id} {currency}): a 409 while an open invoice, a subscription or a balance holds it.
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("currency" as const), currency: arbCurrency }) },
  // The first plan step subscribes the customer; later ones change its price or quantity, now or at the period end.
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("plan" as const),
      plan: fc.nat({ max: CATALOGUE.prices.length - 1 }),
      quantity: fc.integer({ min: 1, max: 12 }),
      change: fc.constantFrom("switch_price" as const, "set_quantity" as const),
      effective: fc.constantFrom("now" as const, "now" as const, "period_end" as const),
      behavior: fc.constantFrom("create_prorations" as const, "always_invoice" as const, "none" as const),
      method: arbCardMethod,
      // Now and then the subscription also carries METERED's item (usage steps are skipped without one): usage is dear, its renewal waits the grace window.
      metered: fc.nat({ max: 3 }).map((n) => n === 3),
      // Now and then it is collected by sending its invoices (issue #37): never charged, due `daysUntilDue` days after finalization.
      sendInvoice: fc.nat({ max: 3 }).map((n) => n === 3),
      daysUntilDue: fc.integer({ min: 0, max: 60 }),
    }),
  },
  // A renewal; with a metered item the clock first stops inside the grace window, where `grace`'s events are sent (stamped `back` minutes before the period end, or at it: the next period's).
  {
    weight: RENEW_WEIGHT,
    arbitrary: fc.record({
      kind: fc.constant("renew" as const),
      grace: fc.array(fc.record({ after: fc.boolean(), back: fc.integer({ min: 1, max: 50 }), value: fc.integer({ min: 1, max: 20 }) }), { maxLength: 2 }),
      // Right after a metered renewal, one late event stamped `back` minutes before the invoiced period's end (RULES-42 3: refused, period_invoiced).
      late: fc.record({ back: fc.integer({ min: 1, max: 50 }), value: fc.integer({ min: 1, max: 20 }) }),
    }),
  },
  // A usage event of the metered item: before the renewal stamped `back` minutes ago (within the period), after it either now (the next period's) or late,
  // `back` minutes before the invoiced period's end (RULES-42 3: refused, `period_invoiced`); `duplicate` sends it twice (counted once).
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("usage" as const),
      late: fc.boolean(),
      back: fc.integer({ min: 0, max: 50 }),
      value: fc.integer({ min: 1, max: 20 }),
      duplicate: fc.boolean(),
    }),
  },
);
export type Step = typeof arbStep extends fc.Arbitrary<infer T> ? T : never;
/**
 * One sequence: its customer, created with a `currency` (`preset`) or without one (half the
 * time), and `wanted`, the currency its invoices and adjustments use while it has none (the first
 * invoice fixes it; a first subscription fixes its price's own instead), then its steps.
 */
export const arbSequence = fc.record({
  customer: fc.record({ preset: fc.oneof(fc.constant(null), arbCurrency), wanted: arbCurrency }),
  steps: fc.array(arbStep, { minLength: 1, maxLength: 7 }),
});
export type Sequence = typeof arbSequence extends fc.Arbitrary<infer T> ? T : never;

/** A refusal a client can be given (409, 422): the step changed nothing of its own, and the sequence goes on. */
export type Outcome<T = null> = { ok: true; value: T } | { ok: false; refusal: string };

export type ChangeStepInput = { type: "switch_price"; item: string; price: string } | { type: "set_quantity"; item: string; quantity: number };
export type CreditNoteInput = {
  invoice: string;
  amount_atom?: number;
  lines?: ({ invoice_line: string; quantity: number } | { invoice_line: string; amount_atom: number })[];
  refund_amount_atom?: number;
  credit_amount_atom?: number;
  out_of_band_amount_atom?: number;
};
/** One usage event as sent: its meter is METERED's, its timestamp in whole seconds. */
export type UsageEventSend = { identifier: string; customer: string; timestamp: number; value: number };
/** What the service answered for one event. */
export type UsageEventAnswer = { status: "accepted" | "duplicate" | "invalid"; code: string | null };

export type InvoiceLineInput = { price: string; quantity: number; tax_rates: string[] } | { unit_amount_atom: number; quantity: number; tax_rates: string[]; description: string };

/** What a sequence does to one customer: the service verbs, or the HTTP operations that call them. */
export interface BillingDriver {
  /** Called before each step: the in-process driver holds its clock still for the step, so the model knows "now". */
  now(): Promise<Date>;
  /** A new customer, with this `currency` or none (null). */
  createCustomer(currency: string | null): Promise<string>;
  /** Create and finalize an invoice in `currency`; answers its id and its lines' ids in order. */
  charge(customer: string, currency: string, lines: InvoiceLineInput[]): Promise<Outcome<{ id: string; lines: string[] }>>;
  pay(invoice: string, method: PayMethod): Promise<Outcome>;
  refund(payment: string, amountAtom: number): Promise<Outcome>;
  creditNote(input: CreditNoteInput): Promise<Outcome<{ id: string }>>;
  voidCreditNote(id: string): Promise<Outcome>;
  voidInvoice(id: string): Promise<Outcome>;
  adjust(customer: string, amountAtom: number, currency: string): Promise<Outcome>;
  applyCoupon(customer: string, coupon: string): Promise<Outcome>;
  /** Sets the customer's `currency` (a customer update). */
  setCurrency(customer: string, currency: string): Promise<Outcome>;
  /**
   * A subscription to the price × quantity, and to the metered price too when one is given (its
   * item second); `sendInvoice`: `collection_method: "send_invoice"` with these `days_until_due`.
   */
  subscribe(
    customer: string,
    price: string,
    quantity: number,
    method: CardMethod,
    metered?: string,
    sendInvoice?: { daysUntilDue: number },
  ): Promise<Outcome<{ id: string; item: string; invoice: string | null }>>;
  /**
   * A change request with these steps, created and applied with the method. A refused apply
   * (its proration not collected) cancels the request, which voids its proration invoice: the
   * refusal names that invoice.
   */
  change(
    subscription: string,
    steps: ChangeStepInput[],
    options: { effective: "now" | "period_end"; behavior: "create_prorations" | "always_invoice" | "none"; method: CardMethod },
  ): Promise<Outcome<{ invoice: string | null; prorationDate: Date }> | { ok: false; refusal: string; invoice: string | null; prorationDate: Date }>;
  /** Moves the account's test clock just past the subscription's renewal: its period end, plus the usage grace with a metered item. */
  renew(subscription: string): Promise<Outcome<{ invoice: string | null }>>;
  /** Reports usage events, in one batch (only drivers that do; without it no subscription gets a metered item). */
  usage?(events: UsageEventSend[]): Promise<UsageEventAnswer[]>;
  /** Moves the account's test clock to `to` (inside a renewal's grace window). */
  advance?(to: Date): Promise<void>;
  /** After the sequence's last check: cancel its subscription now, so later clock advances of the lane do not renew it. */
  end(subscription: string): Promise<void>;
}

type MPayment = { id: string; amount: number; refunded: number; failed: boolean; refundFails: boolean };
type MInvoice = {
  id: string;
  /** Every amount of the invoice is in atoms of this one currency. */
  currency: string;
  status: "open" | "paid" | "void";
  amounts: InvoiceAmounts;
  /** The balance finalization applied: > 0 a credit drawn, < 0 a debit carried onto it. */
  applied: number;
  due: number;
  paid: number;
  pre: number;
  post: number;
  payments: MPayment[];
  credited: Map<string, LineCredited>;
};
type MNote = { id: string; invoice: string; status: "issued" | "void"; type: "pre" | "post"; total: number; tax: number; discount: number; lineParts: { line: string; amount: number; quantity: number; discount: number; taxes: ModelLineTax[] }[] };
type MItem = { id: string; price: number; quantity: number };
/** A metered item's usage as the model counts it: the accepted events (timestamps in ms), and the period the renewal invoiced. */
type MUsage = { events: { at: number; value: number }[]; sent: number; invoiced: { start: Date; end: Date } | null };
type MSubscription = {
  id: string;
  /** The customer's currency when it was created, or its first price's own when they had none: every amount it bills is in it. */
  currency: string;
  items: MItem[];
  method: CardMethod;
  /** `send_invoice`'s days until due; null: charge_automatically. */
  sendInvoice: number | null;
  periodStart: Date;
  periodEnd: Date;
  pending: { price: number } | { quantity: number } | null;
  renewed: boolean;
  metered: MUsage | null;
};

/** What sequences did in currencies, for a run's log: invoices finalized per currency, and the currency refusals (422 no amount, 409 held) and changes the model and the service agreed on. */
export type CurrencyTally = { invoices: Record<string, number>; noAmount: number; held: number; changed: number };
export const newCurrencyTally = (): CurrencyTally => ({ invoices: {}, noAmount: 0, held: 0, changed: 0 });

/** The model of one customer's money, and what the database cannot know (money that changed hands outside the service). */
export type Model = {
  customer: string;
  /** The customer's currency: set on creation, or fixed by their first invoice or subscription; null until then. */
  currency: string | null;
  /** The currency the sequence's invoices and adjustments use while the customer has none. */
  wanted: string;
  /** Per currency: what invoices paid out of band had due. */
  outOfBandIn: Record<string, number>;
  /** The customer's balance per currency (positive: a credit). */
  balances: Record<string, number>;
  discount: { coupon: ModelCoupon; start: Date; used: boolean } | null;
  invoices: MInvoice[];
  notes: MNote[];
  subscription: MSubscription | null;
  /** Where the step at hand disagreed with the model: its outcome, or (after it) an amount. */
  log: string[];
  tally: CurrencyTally;
};

const pick = <T>(list: readonly T[], n: number): T | undefined => (list.length === 0 ? undefined : list[n % list.length]);
const sumOf = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** The customer's discount in force at `at` (RULES-42 1: a once coupon's first finalized invoice ends it). */
function couponAt(model: Model, at: Date): ModelCoupon | null {
  const discount = model.discount;
  if (!discount || discount.start.getTime() > at.getTime()) return null;
  if (discount.coupon.duration === "once" && discount.used) return null;
  if (discount.coupon.duration === "repeating" && plusMonths(discount.start, discount.coupon.months!).getTime() <= at.getTime()) return null;
  return discount.coupon;
}

const balanceIn = (model: Model, currency: string): number => model.balances[currency] ?? 0;
const addToBalance = (model: Model, currency: string, amount: number): void => void (model.balances[currency] = balanceIn(model, currency) + amount);

/**
 * Finalization, as the model sees it, in the invoice's one `currency`: the discount (an amount-off
 * coupon without an amount in it neither discounts nor is used up), the amounts, the balance in
 * that currency applied, paid at once when nothing is due.
 */
function finalize(model: Model, id: string, lines: { id: string | null; quantity: number; amount: number; rates: readonly ModelRate[] }[], at: Date, currency: string): MInvoice {
  const found = couponAt(model, at);
  const coupon = found && couponAppliesIn(found, currency) ? found : null;
  if (coupon && coupon.duration === "once") model.discount!.used = true;
  const amounts = invoiceAmounts(lines, coupon, currency);
  const { applied, due } = applyBalance(balanceIn(model, currency), amounts.total);
  addToBalance(model, currency, -applied);
  const invoice: MInvoice = { id, currency, status: due === 0 ? "paid" : "open", amounts, applied, due, paid: due === 0 ? amounts.total : 0, pre: 0, post: 0, payments: [], credited: new Map() };
  model.invoices.push(invoice);
  model.tally.invoices[currency] = (model.tally.invoices[currency] ?? 0) + 1;
  return invoice;
}

/** The model's payment of an open invoice with a card (the sandbox's rules), or null where it refuses. */
function cardPayment(invoice: MInvoice, method: CardMethod, id: string | null): void {
  const payment = (amount: number, failed: boolean) => invoice.payments.push({ id: id ?? "", amount, refunded: 0, failed, refundFails: method === "pm_sandbox_refund_fails" });
  if (method === "pm_sandbox_declined") return void payment(invoice.due, true);
  const half = Math.floor(invoice.due / 2);
  const received = method === "pm_sandbox_partially_funded" && half > 0 ? half : invoice.due;
  payment(received, false);
  if (received === invoice.due) {
    invoice.status = "paid";
    invoice.due = 0;
    invoice.paid = invoice.amounts.total;
  } else {
    invoice.due -= received;
    invoice.paid += received;
  }
}

/** The ids of the customer's payments, oldest first: the model's payments take theirs in the same order. */
async function paymentIds(customer: string): Promise<{ id: string; invoiceId: string | null }[]> {
  const db = await getDb();
  return db
    .select({ id: payments.id, invoiceId: paymentIntents.invoiceId })
    .from(payments)
    .innerJoin(paymentIntents, eq(paymentIntents.id, payments.paymentIntentId))
    .where(eq(paymentIntents.customerId, customer))
    .orderBy(asc(payments.created), asc(payments.id));
}

/** Gives the lines of an invoice the service made (a subscription's) their ids, in the order the model lists them. */
async function nameLines(invoice: MInvoice): Promise<void> {
  const db = await getDb();
  const rows = await db.select({ id: invoiceLines.id }).from(invoiceLines).where(eq(invoiceLines.invoiceId, invoice.id)).orderBy(asc(invoiceLines.created), asc(invoiceLines.id));
  invoice.amounts.lines.forEach((line, index) => {
    line.id = rows[index]?.id ?? "(the service made no such line)";
  });
}

/** Gives the model's new payments (id "") the database's ids, invoice by invoice, in order. */
async function namePayments(model: Model): Promise<void> {
  const unnamed = model.invoices.some((invoice) => invoice.payments.some((payment) => payment.id === ""));
  if (!unnamed) return;
  const rows = await paymentIds(model.customer);
  for (const invoice of model.invoices) {
    const ids = rows.filter((row) => row.invoiceId === invoice.id).map((row) => row.id);
    invoice.payments.forEach((payment, index) => {
      if (payment.id === "") payment.id = ids[index] ?? "(the service recorded no such payment)";
    });
  }
}

async function subscriptionPeriod(id: string): Promise<{ start: Date; end: Date; status: string; latest: string | null }> {
  const db = await getDb();
  const [row] = await db.select().from(subscriptions).where(eq(subscriptions.id, id));
  return { start: row!.currentPeriodStart, end: row!.currentPeriodEnd, status: row!.status, latest: row!.latestInvoiceId };
}

const rateTerms = (ids: CatalogueIds, indexes: readonly number[]): ModelRate[] => indexes.map((index) => ({ id: ids.taxRates[index]!, ...CATALOGUE.taxRates[index]! }));
/** What `quantity` of a price the model knows bills in `currency` costs there (its terms in that currency; never converted). */
function costIn(price: ModelMultiPrice, currency: string, quantity: number): number {
  const terms = priceIn(price, currency);
  if (!terms) throw new Error(`the model bills a price in ${currency}, which it has no amount in`);
  return costOf(terms, quantity);
}
const itemsCost = (items: readonly { price: number; quantity: number }[], currency: string) => sumOf(items.map((item) => costIn(CATALOGUE.prices[item.price]!, currency, item.quantity)));

/**
 * What keeps the customer's currency as it is (docs/billing.md, "Currency options"): an open
 * invoice (the model's invoices are never left drafts), a subscription (a sequence's is never
 * cancelled before its end) or a balance other than 0 in any currency. [] when it may change.
 */
function currencyHolds(model: Model): string[] {
  const holds: string[] = [];
  if (model.invoices.some((invoice) => invoice.status === "open")) holds.push("an open invoice");
  if (model.subscription) holds.push("a subscription");
  if (Object.values(model.balances).some((amount) => amount !== 0)) holds.push(`a balance ${JSON.stringify(model.balances)}`);
  return holds;
}

/** What the model expects of a step: done, or refused (with why). */
type Expect = { ok: true } | { ok: false; why: string };
const refuse = (why: string): Expect => ({ ok: false, why });
const done: Expect = { ok: true };

/** Compares the driver's outcome with the model's expectation; answers whether the step was done. */
function agree(model: Model, what: string, expected: Expect, outcome: { ok: boolean; refusal?: string }): boolean {
  if (expected.ok && !outcome.ok) model.log.push(`${what}: the service refused (${outcome.refusal}) what the model accepts`);
  if (!expected.ok && outcome.ok) model.log.push(`${what}: the service accepted what the model refuses (${expected.why})`);
  return outcome.ok;
}

async function step(driver: BillingDriver, model: Model, ids: CatalogueIds, current: Step): Promise<void> {
  const now = await driver.now();
  switch (current.kind) {
    case "invoice": {
      // A one-off invoice names its currency: an explicit one now and then, else the customer's, else the one the customer wants (which it then fixes).
      const currency = current.currency ?? model.currency ?? model.wanted;
      const inputs: InvoiceLineInput[] = current.lines.map((line) =>
        line.source < CATALOGUE.prices.length
          ? { price: ids.prices[line.source]!, quantity: line.quantity, tax_rates: line.rates.map((rate) => ids.taxRates[rate]!) }
          : { unit_amount_atom: line.unitAmount, quantity: line.quantity, tax_rates: line.rates.map((rate) => ids.taxRates[rate]!), description: "Charge" },
      );
      // Each price line is priced from the price's terms in the invoice's currency; a price without them is a 422 (nothing is made, no currency fixed).
      const lacking = current.lines.find((line) => line.source < CATALOGUE.prices.length && priceIn(CATALOGUE.prices[line.source]!, currency) === null);
      const expected = lacking ? refuse(`price ${lacking.source} has no ${currency} amount`) : done;
      const outcome = await driver.charge(model.customer, currency, inputs);
      if (!expected.ok && !outcome.ok) model.tally.noAmount += 1;
      if (!agree(model, `invoice in ${currency}`, expected, outcome) || !outcome.ok || !expected.ok) return;
      model.currency ??= currency;
      finalize(
        model,
        outcome.value.id,
        current.lines.map((line, index) => ({
          id: outcome.value.lines[index]!,
          quantity: line.quantity,
          amount: line.source < CATALOGUE.prices.length ? costIn(CATALOGUE.prices[line.source]!, currency, line.quantity) : line.unitAmount * line.quantity,
          rates: rateTerms(ids, line.rates),
        })),
        now,
        currency,
      );
      return;
    }
    case "pay": {
      // Mostly open invoices; now and then any (paying a paid or void one is refused).
      const open = model.invoices.filter((invoice) => invoice.status === "open");
      const invoice = pick(current.target % 5 === 0 || open.length === 0 ? model.invoices : open, current.target);
      if (!invoice) return;
      const expected = invoice.status === "open" ? done : refuse(`the invoice is ${invoice.status}`);
      const outcome = await driver.pay(invoice.id, current.method);
      if (!agree(model, `pay ${invoice.id} (${current.method})`, expected, outcome) || !expected.ok) return;
      if (current.method === "out_of_band") {
        // Paid outside the service: the customer handed over exactly what the invoice had due.
        model.outOfBandIn[invoice.currency] = (model.outOfBandIn[invoice.currency] ?? 0) + invoice.due;
        invoice.status = "paid";
        invoice.due = 0;
        invoice.paid = invoice.amounts.total;
      } else cardPayment(invoice, current.method, null);
      return;
    }
    case "refund": {
      const refundable = model.invoices.flatMap((invoice) => invoice.payments).filter((payment) => !payment.failed && payment.refunded < payment.amount);
      const payment = pick(refundable, current.target);
      if (!payment) return;
      const expected = current.amount <= payment.amount - payment.refunded ? done : refuse("more than the payment has left to refund");
      const outcome = await driver.refund(payment.id, current.amount);
      // A refund of a pm_sandbox_refund_fails payment is made, and fails: nothing moves.
      if (agree(model, `refund ${payment.id}`, expected, outcome) && expected.ok && !payment.refundFails) payment.refunded += current.amount;
      return;
    }
    case "credit_note":
      return creditNoteStep(driver, model, current);
    case "void": {
      const note = pick(
        model.notes.filter((n) => n.status === "issued"),
        current.target,
      );
      if (!note) return;
      const invoice = model.invoices.find((i) => i.id === note.invoice)!;
      const expected = note.type === "post" ? refuse("issued after payment") : invoice.status !== "open" ? refuse(`its invoice is ${invoice.status}`) : done;
      const outcome = await driver.voidCreditNote(note.id);
      if (!agree(model, `void ${note.id}`, expected, outcome) || !expected.ok) return;
      note.status = "void";
      invoice.due += note.total;
      invoice.pre -= note.total;
      for (const part of note.lineParts) {
        const credited = invoice.credited.get(part.line)!;
        credited.amount -= part.amount;
        credited.quantity -= part.quantity;
        credited.discount -= part.discount;
        for (const tax of part.taxes) credited.taxes.set(tax.rate, (credited.taxes.get(tax.rate) ?? 0) - tax.amount);
      }
      return;
    }
    case "void_invoice": {
      // An invoice part-paid by card: what its void does with the payment is being decided (issue #42, 2); left out here.
      const invoice = pick(
        model.invoices.filter((i) => i.paid === 0 || i.status !== "open"),
        current.target,
      );
      if (!invoice) return;
      const expected = invoice.status === "open" ? done : refuse(`the invoice is ${invoice.status}`);
      const outcome = await driver.voidInvoice(invoice.id);
      if (!agree(model, `void invoice ${invoice.id}`, expected, outcome) || !expected.ok) return;
      invoice.status = "void";
      // RULES-42 4: the void gives back every balance amount the invoice applied (in its currency).
      addToBalance(model, invoice.currency, invoice.applied);
      return;
    }
    case "adjust": {
      // In the customer's currency (or the one they want while they have none: an adjustment fixes no currency).
      const currency = model.currency ?? model.wanted;
      const outcome = await driver.adjust(model.customer, current.amount, currency);
      if (agree(model, `adjust in ${currency}`, done, outcome)) addToBalance(model, currency, current.amount);
      return;
    }
    case "currency": {
      const holds = current.currency === model.currency ? [] : currencyHolds(model);
      const expected = holds.length > 0 ? refuse(`${model.currency ?? "no currency"} → ${current.currency} is held by ${holds.join(" and ")}`) : done;
      const outcome = await driver.setCurrency(model.customer, current.currency);
      if (!expected.ok && !outcome.ok) model.tally.held += 1;
      if (agree(model, `currency ${model.currency ?? "none"} → ${current.currency}`, expected, outcome) && expected.ok) {
        if (model.currency !== current.currency) model.tally.changed += 1;
        model.currency = current.currency;
      }
      return;
    }
    case "coupon": {
      const outcome = await driver.applyCoupon(model.customer, ids.coupons[current.coupon]!);
      if (agree(model, "coupon", done, outcome)) model.discount = { coupon: CATALOGUE.coupons[current.coupon]!, start: now, used: false };
      return;
    }
    case "plan":
      return planStep(driver, model, ids, current, now);
    case "renew":
      return renewStep(driver, model, ids, current);
    case "usage":
      return usageStep(driver, model, current, now);
  }
}

async function creditNoteStep(driver: BillingDriver, model: Model, current: Extract<Step, { kind: "credit_note" }>): Promise<void> {
  const invoice = pick(model.invoices, current.target);
  if (!invoice) return;
  const input: CreditNoteInput = { invoice: invoice.id };
  let expected: Expect = done;
  let total = 0;
  let tax = 0;
  let discount = 0;
  const parts: MNote["lineParts"] = [];
  if (current.byLines) {
    const named = new Set<string>();
    const credited = new Map([...invoice.credited].map(([line, c]) => [line, { amount: c.amount, quantity: c.quantity, discount: c.discount, taxes: new Map(c.taxes) }]));
    input.lines = [];
    for (const wanted of current.lines) {
      const line = pick(invoice.amounts.lines, wanted.pick)!;
      const id = line.id!;
      if (named.has(id)) expected = refuse("a line named twice");
      named.add(id);
      const quantity = Math.min(wanted.quantity, line.quantity);
      // A line of no units (a usage line without usage) has no unit to credit: by amount.
      const byQuantity = wanted.byQuantity && line.quantity > 0;
      const so = credited.get(id) ?? { amount: 0, quantity: 0, discount: 0, taxes: new Map<string, number>() };
      if (byQuantity && so.quantity + quantity > line.quantity) {
        input.lines.push({ invoice_line: id, quantity });
        expected = refuse(`line ${id}: ${so.quantity} units credited + ${quantity} > its quantity ${line.quantity}`);
        continue;
      }
      const part = byQuantity ? unitsPart(line, so.quantity, quantity) : Math.min(wanted.amount, Math.max(line.amount, 1));
      input.lines.push(byQuantity ? { invoice_line: id, quantity } : { invoice_line: id, amount_atom: part });
      if (so.amount + part > line.amount) {
        expected = refuse(`line ${id}: ${so.amount} credited + ${part} > its amount ${line.amount}`);
        continue;
      }
      const made = creditLinePart(line, so, part);
      total += made.total;
      discount += made.discount;
      tax += sumOf(made.taxes.map((t) => t.amount));
      const units = byQuantity ? quantity : 0;
      parts.push({ line: id, amount: part, quantity: units, discount: made.discount, taxes: made.taxes });
      credited.set(id, { amount: so.amount + part, quantity: so.quantity + units, discount: so.discount + made.discount, taxes: new Map(made.taxes.map((t) => [t.rate, (so.taxes.get(t.rate) ?? 0) + t.amount])) });
    }
  } else {
    total = Math.min(current.amount, invoice.amounts.total + 1);
    input.amount_atom = total;
    if (total > invoice.amounts.total) expected = refuse("more than the invoice's total");
    const byRate = new Map<string, number>();
    for (const t of invoice.amounts.lines.flatMap((line) => line.taxes)) byRate.set(t.rate, (byRate.get(t.rate) ?? 0) + t.amount);
    if (invoice.amounts.total > 0) tax = sumOf([...byRate.values()].map((amount) => Number(halfEven(BigInt(amount) * BigInt(total), BigInt(invoice.amounts.total)))));
  }
  if (expected.ok && invoice.status === "void") expected = refuse("the invoice is void");
  if (expected.ok && total === 0) expected = refuse("credits nothing");
  if (expected.ok && total > invoice.amounts.total - invoice.pre - invoice.post) expected = refuse("more than is left to credit");
  if (expected.ok && invoice.status === "open" && total > invoice.due) expected = refuse("more than the amount due");
  let refund = 0;
  let credit = 0;
  if (invoice.status === "paid") {
    refund = Math.floor((total * current.split[0]) / 200);
    credit = Math.floor(((total - refund) * current.split[1]) / 100);
    Object.assign(input, { refund_amount_atom: refund, credit_amount_atom: credit, out_of_band_amount_atom: total - refund - credit });
    const refundable = invoice.payments.filter((p) => !p.failed);
    if (expected.ok && refund > sumOf(refundable.map((p) => p.amount - p.refunded))) expected = refuse("more refund than the payments have left");
    // The refund is made of the payments oldest first; one that fails refuses the whole credit note.
    let rest = refund;
    for (const payment of refundable) {
      const take = Math.min(rest, payment.amount - payment.refunded);
      if (take > 0 && payment.refundFails && expected.ok) expected = refuse("its refund fails");
      rest -= take;
    }
  }
  const outcome = await driver.creditNote(input);
  if (!agree(model, `credit note on ${invoice.id} ${JSON.stringify(input)}`, expected, outcome) || !expected.ok || !outcome.ok) return;
  const type = invoice.status === "paid" ? "post" : "pre";
  model.notes.push({ id: outcome.value.id, invoice: invoice.id, status: "issued", type, total, tax, discount, lineParts: parts });
  for (const part of parts) {
    const so = invoice.credited.get(part.line) ?? { amount: 0, quantity: 0, discount: 0, taxes: new Map<string, number>() };
    so.amount += part.amount;
    so.quantity += part.quantity;
    so.discount += part.discount;
    for (const t of part.taxes) so.taxes.set(t.rate, (so.taxes.get(t.rate) ?? 0) + t.amount);
    invoice.credited.set(part.line, so);
  }
  if (type === "pre") {
    invoice.pre += total;
    invoice.due -= total;
    if (invoice.due === 0) {
      invoice.status = "paid";
      invoice.paid = invoice.amounts.total;
    }
    return;
  }
  invoice.post += total;
  addToBalance(model, invoice.currency, credit);
  let rest = refund;
  for (const payment of invoice.payments.filter((p) => !p.failed)) {
    const take = Math.min(rest, payment.amount - payment.refunded);
    payment.refunded += take;
    rest -= take;
  }
}

async function planStep(driver: BillingDriver, model: Model, ids: CatalogueIds, current: Extract<Step, { kind: "plan" }>, now: Date): Promise<void> {
  const subscription = model.subscription;
  if (!subscription) {
    const metered = current.metered && driver.usage && driver.advance ? ids.metered : undefined;
    const sendInvoice = current.sendInvoice ? { daysUntilDue: current.daysUntilDue } : undefined;
    // In the customer's currency, or the first price's own when they have none (which it then fixes); every price must bill in it (422).
    const currency = model.currency ?? CATALOGUE.prices[current.plan]!.currency;
    const expected =
      priceIn(CATALOGUE.prices[current.plan]!, currency) === null
        ? refuse(`price ${current.plan} has no ${currency} amount`)
        : metered && priceIn(METERED.price, currency) === null
          ? refuse(`the metered price has no ${currency} amount`)
          : done;
    const made = await driver.subscribe(model.customer, ids.prices[current.plan]!, current.quantity, current.method, metered, sendInvoice);
    if (!expected.ok && !made.ok) model.tally.noAmount += 1;
    if (!agree(model, `subscribe in ${currency}`, expected, made) || !made.ok || !expected.ok) return;
    model.currency ??= currency;
    const period = await subscriptionPeriod(made.value.id);
    model.subscription = {
      id: made.value.id,
      currency,
      items: [{ id: made.value.item, price: current.plan, quantity: current.quantity }],
      method: current.method,
      sendInvoice: sendInvoice?.daysUntilDue ?? null,
      periodStart: period.start,
      periodEnd: period.end,
      pending: null,
      renewed: false,
      metered: metered ? { events: [], sent: 0, invoiced: null } : null,
    };
    // The first invoice bills the licensed item only: usage is billed in arrears.
    if (made.value.invoice) {
      await nameLines(finalize(model, made.value.invoice, [{ id: null, quantity: current.quantity, amount: costIn(CATALOGUE.prices[current.plan]!, currency, current.quantity), rates: [] }], now, currency));
      await checkCollection(model, made.value.invoice, model.subscription.sendInvoice);
    } else model.log.push("subscribe: no first invoice");
    return;
  }
  // A second change at the period end while one waits: not drawn (the renewal applies one).
  if (current.effective === "period_end" && subscription.pending) return;
  const [item] = subscription.items;
  const after = current.change === "switch_price" ? { price: current.plan === item!.price ? (current.plan + 1) % CATALOGUE.prices.length : current.plan, quantity: item!.quantity } : { price: item!.price, quantity: current.quantity === item!.quantity ? current.quantity + 1 : current.quantity };
  const steps: ChangeStepInput[] = [current.change === "switch_price" ? { type: "switch_price", item: item!.id, price: ids.prices[after.price]! } : { type: "set_quantity", item: item!.id, quantity: after.quantity }];
  // Not partially funded: a void of a part-paid proration invoice keeps a payment whose fate is being decided (issue #42, 2).
  const method = current.method === "pm_sandbox_partially_funded" ? "pm_sandbox_succeeds" : current.method;
  const outcome = await driver.change(subscription.id, steps, { effective: current.effective, behavior: current.behavior, method });
  // A price without an amount in the subscription's currency: the change request is a 422 (nothing made, now or at the period end).
  if (priceIn(CATALOGUE.prices[after.price]!, subscription.currency) === null) {
    if (!outcome.ok) model.tally.noAmount += 1;
    agree(model, `change to price ${after.price}`, refuse(`price ${after.price} has no ${subscription.currency} amount`), outcome);
    return;
  }
  if (current.effective === "period_end") {
    // A scheduled step changes one thing of the item as it stands at the renewal (a price switched
    // now in between keeps the scheduled quantity, and the reverse), so the model keeps the step, not a snapshot.
    if (agree(model, "change at period end", done, outcome)) subscription.pending = current.change === "switch_price" ? { price: after.price } : { quantity: after.quantity };
    return;
  }
  const signed =
    current.behavior === "none"
      ? 0
      : proration(itemsCost(subscription.items, subscription.currency), itemsCost([after], subscription.currency), subscription.periodStart, subscription.periodEnd, "prorationDate" in outcome ? outcome.prorationDate : now);
  let expected: Expect = done;
  if (signed > 0) {
    const invoiceId = outcome.ok ? outcome.value.invoice : "invoice" in outcome ? outcome.invoice : null;
    if (invoiceId === null) {
      model.log.push(`change now: a proration of ${signed} is due, but no proration invoice was made`);
      return;
    }
    const invoice = finalize(model, invoiceId, [{ id: null, quantity: 1, amount: signed, rates: [] }], outcome.ok || !("prorationDate" in outcome) ? now : outcome.prorationDate, subscription.currency);
    await nameLines(invoice);
    if (invoice.status === "open") cardPayment(invoice, method, null);
    if (invoice.status !== "paid") {
      expected = refuse("its proration was not collected");
      // The driver cancels the refused request, which voids the proration invoice (and gives its balance back).
      invoice.status = "void";
      addToBalance(model, invoice.currency, invoice.applied);
    }
  }
  if (!agree(model, `change now ${JSON.stringify(steps)} (${current.behavior}, ${current.method}, proration ${signed})`, expected, outcome) || !expected.ok) return;
  if (signed < 0) addToBalance(model, subscription.currency, -signed);
  subscription.items = [{ id: item!.id, ...after }];
}

const MINUTE = 60_000;

/**
 * Sends one usage event (twice when `duplicate`) and compares the answers with the model's: `expected`
 * for the first, `duplicate` for the second (the same identifier and body count once). Answers
 * whether the first was accepted.
 */
async function sendUsage(driver: BillingDriver, model: Model, usage: MUsage, at: number, value: number, duplicate: boolean, expected: UsageEventAnswer): Promise<boolean> {
  usage.sent += 1;
  const event: UsageEventSend = { identifier: `${model.customer}_u${usage.sent}`, customer: model.customer, timestamp: Math.floor(at / 1000), value };
  const answers = await driver.usage!(duplicate ? [event, event] : [event]);
  const wanted = duplicate ? [expected, expected.status === "accepted" ? { status: "duplicate", code: null } : expected] : [expected];
  const what = `usage ${JSON.stringify(event)} (${new Date(event.timestamp * 1000).toISOString()}; period ${model.subscription!.periodStart.toISOString()} – ${model.subscription!.periodEnd.toISOString()})`;
  if (JSON.stringify(answers) !== JSON.stringify(wanted)) model.log.push(`${what}: the service answered ${JSON.stringify(answers)}, the model ${JSON.stringify(wanted)}`);
  const accepted = answers[0]?.status === "accepted";
  if (accepted) usage.events.push({ at: event.timestamp * 1000, value });
  return accepted;
}

async function usageStep(driver: BillingDriver, model: Model, current: Extract<Step, { kind: "usage" }>, now: Date): Promise<void> {
  const subscription = model.subscription;
  const usage = subscription?.metered;
  if (!subscription || !usage) return;
  if (usage.invoiced === null) {
    // Within the open period, `back` minutes ago at most to its start (rounded up to the second: timestamps are whole seconds).
    const at = Math.max(Math.ceil(subscription.periodStart.getTime() / 1000) * 1000, now.getTime() - current.back * MINUTE);
    await sendUsage(driver, model, usage, at, current.value, current.duplicate, { status: "accepted", code: null });
    return;
  }
  if (!current.late) {
    await sendUsage(driver, model, usage, now.getTime(), current.value, current.duplicate, { status: "accepted", code: null });
    return;
  }
  // RULES-42 3: stamped in the period the renewal invoiced (within the grace window, so not "too old"): refused, never accepted and lost.
  const at = usage.invoiced.end.getTime() - Math.max(1, current.back) * MINUTE;
  await sendUsage(driver, model, usage, at, current.value, current.duplicate, { status: "invalid", code: "period_invoiced" });
}

async function renewStep(driver: BillingDriver, model: Model, ids: CatalogueIds, current: Extract<Step, { kind: "renew" }>): Promise<void> {
  const subscription = model.subscription;
  // One renewal a sequence: a second would run the first one's dunning retries, which the model leaves out.
  if (!subscription || subscription.renewed) return;
  subscription.renewed = true;
  const renewedAt = subscription.periodEnd;
  const usage = subscription.metered;
  if (usage && current.grace.length > 0) {
    // Inside the grace window (the renewal waits for it): late events of the ending period still count; those at its end belong to the next.
    await driver.advance!(new Date(renewedAt.getTime() + 1_000));
    const now = await driver.now();
    for (const event of current.grace) {
      const at = event.after ? Math.ceil(renewedAt.getTime() / 1000) * 1000 : renewedAt.getTime() - event.back * MINUTE;
      await sendUsage(driver, model, usage, Math.min(at, now.getTime()), event.value, false, { status: "accepted", code: null });
    }
  }
  const outcome = await driver.renew(subscription.id);
  if (!agree(model, "renew", done, outcome) || !outcome.ok) return;
  if (subscription.pending) {
    subscription.items = [{ ...subscription.items[0]!, ...subscription.pending }];
    subscription.pending = null;
  }
  const period = await subscriptionPeriod(subscription.id);
  const ended = { start: subscription.periodStart, end: subscription.periodEnd };
  subscription.periodStart = period.start;
  subscription.periodEnd = period.end;
  if (outcome.value.invoice === null) return void model.log.push("renew: no renewal invoice");
  const lines = subscription.items.map((item) => ({ id: null, quantity: item.quantity, amount: costIn(CATALOGUE.prices[item.price]!, subscription.currency, item.quantity), rates: [] as ModelRate[] }));
  if (usage) {
    // The ended period's usage, [start, end), after the licensed lines: each accepted event once, by METERED's tiers.
    const units = sumOf(usage.events.filter((event) => event.at >= ended.start.getTime() && event.at < ended.end.getTime()).map((event) => event.value));
    lines.push({ id: null, quantity: units, amount: costIn(METERED.price, subscription.currency, units), rates: [] });
    usage.invoiced = ended;
  }
  const invoice = finalize(model, outcome.value.invoice, lines, renewedAt, subscription.currency);
  await nameLines(invoice);
  void ids;
  if (usage) {
    // The clock moved on with the renewal: the event is sent at the renewal's time, not the step's start.
    await driver.now();
    await sendUsage(driver, model, usage, ended.end.getTime() - current.late.back * MINUTE, current.late.value, false, { status: "invalid", code: "period_invoiced" });
  }
  await checkCollection(model, invoice.id, subscription.sendInvoice);
  // A send_invoice renewal waits for the customer: never charged, no dunning.
  if (invoice.status === "open" && subscription.sendInvoice === null) cardPayment(invoice, subscription.method, null);
}

const DAY_MS = 86_400_000;

/**
 * A subscription invoice carries its collection method: `send_invoice` (`days` not null) is never
 * charged automatically (no attempt, no retry scheduled) and is due `days` days after its
 * finalization; `charge_automatically` has no due date of its own.
 */
async function checkCollection(model: Model, id: string, days: number | null): Promise<void> {
  const db = await getDb();
  const [row] = await db
    .select({ method: invoices.collectionMethod, finalizedAt: invoices.finalizedAt, dueDate: invoices.dueDate, attempts: invoices.attemptCount, next: invoices.nextPaymentAttempt })
    .from(invoices)
    .where(eq(invoices.id, id));
  if (!row?.finalizedAt) return void model.log.push(`invoice ${id}: not finalized`);
  const expected =
    days === null
      ? { method: "charge_automatically", due: null }
      : { method: "send_invoice", due: new Date(row.finalizedAt.getTime() + days * DAY_MS).toISOString(), attempts: 0, next: null };
  const actual =
    days === null
      ? { method: row.method, due: row.dueDate?.toISOString() ?? null }
      : { method: row.method, due: row.dueDate?.toISOString() ?? null, attempts: row.attempts, next: row.next?.toISOString() ?? null };
  if (JSON.stringify(actual) !== JSON.stringify(expected)) model.log.push(`invoice ${id}'s collection: the service has ${JSON.stringify(actual)}, the model ${JSON.stringify(expected)}`);
}

/**
 * Runs one sequence on a new customer (answered), comparing every step's outcome and the money
 * after it with the model, and checking every invariant after every step. `ids`: the lane's
 * CATALOGUE objects.
 */
export async function runSequence(driver: BillingDriver, ids: CatalogueIds, { customer, steps }: Sequence, tally: CurrencyTally = newCurrencyTally()): Promise<string> {
  const model: Model = {
    customer: await driver.createCustomer(customer.preset),
    currency: customer.preset,
    wanted: customer.wanted,
    outOfBandIn: {},
    balances: {},
    discount: null,
    invoices: [],
    notes: [],
    subscription: null,
    log: [],
    tally,
  };
  try {
    for (const [index, current] of steps.entries()) {
      await step(driver, model, ids, current);
      await namePayments(model);
      await checkInvariants(model, `after step ${index} (${JSON.stringify(current)})`);
    }
  } finally {
    if (model.subscription) await driver.end(model.subscription.id);
  }
  return model.customer;
}

/** The model's amounts against the rows: every difference, named. */
function compareWithModel(
  model: Model,
  rows: InvoiceRowAmounts[],
  notes: (typeof creditNotes.$inferSelect)[],
  paid: { id: string; amountAtom: number; refundedAtom: number; status: string }[],
  balances: Record<string, number>,
  currency: string | null,
  check: (holds: boolean, what: string) => void,
): void {
  check(currency === model.currency, `the customer bills in ${currency ?? "no currency"}, the model says ${model.currency ?? "none"}`);
  for (const line of model.log) check(false, line);
  check(rows.length === model.invoices.length, `${rows.length} finalized invoices, the model has ${model.invoices.length}`);
  for (const expected of model.invoices) {
    const row = rows.find((r) => r.id === expected.id);
    if (!row) {
      check(false, `${expected.id}: the model's invoice is not finalized`);
      continue;
    }
    const want = { currency: expected.currency, status: expected.status, subtotal: expected.amounts.subtotal, discount: expected.amounts.discount, tax: expected.amounts.tax, total: expected.amounts.total, due: expected.due, paid: expected.paid, pre: expected.pre, post: expected.post };
    const got = { currency: row.currency, status: row.status, subtotal: row.subtotalAtom, discount: row.discountAtom, tax: row.taxAtom, total: row.totalAmountAtom, due: row.dueAmountAtom, paid: row.paidAmountAtom, pre: row.prePaymentCreditNotesAmountAtom, post: row.postPaymentCreditNotesAmountAtom };
    check(JSON.stringify(want) === JSON.stringify(got), `${expected.id}: the model says ${JSON.stringify(want)}, the invoice ${JSON.stringify(got)}`);
    for (const payment of expected.payments) {
      const got = paid.find((p) => p.id === payment.id);
      check(got !== undefined && got.amountAtom === payment.amount && got.refundedAtom === payment.refunded && (got.status === "failed") === payment.failed, `${payment.id}: the model's payment ${JSON.stringify(payment)}, the row ${JSON.stringify(got)}`);
    }
  }
  check(notes.length === model.notes.length, `${notes.length} credit notes, the model has ${model.notes.length}`);
  for (const expected of model.notes) {
    const row = notes.find((n) => n.id === expected.id);
    const want = { status: expected.status, total: expected.total, tax: expected.tax, discount: expected.discount };
    const got = row && { status: row.status, total: row.totalAmountAtom, tax: row.taxAtom, discount: row.discountAtom };
    check(JSON.stringify(want) === JSON.stringify(got), `${expected.id}: the model's credit note ${JSON.stringify(want)}, the row ${JSON.stringify(got)}`);
  }
  for (const code of new Set([...Object.keys(balances), ...Object.keys(model.balances)])) {
    check((balances[code] ?? 0) === balanceIn(model, code), `the ${code} balance is ${balances[code] ?? 0}, the model's ${balanceIn(model, code)}`);
  }
}

const sum = sumOf;

/** A table's rows as `json_agg` returned them (keyed by column name): each column through its own driver mapping, as a select maps it. */
function rowsFromJson<T extends Table, K extends keyof InferSelectModel<T> & string>(table: T, json: Record<string, unknown>[] | null, keys?: readonly K[]): Pick<InferSelectModel<T>, K>[] {
  const all = getTableColumns(table) as Record<string, Column>;
  const columns = (keys ?? Object.keys(all)).map((key) => [key, all[key]!] as const);
  return (json ?? []).map(
    (raw) => Object.fromEntries(columns.map(([key, column]) => [key, raw[column.name] === null ? null : column.mapFromDriverValue(raw[column.name])])) as Pick<InferSelectModel<T>, K>,
  );
}

/** The JSON object of a row's `keys` columns, keyed by column name (rowsFromJson reads it): only what is compared, not an invoice's whole printed document. */
function columnsAsJson<T extends Table>(table: T, keys: readonly (keyof InferSelectModel<T> & string)[]): SQL {
  const all = getTableColumns(table) as Record<string, Column>;
  return sql`json_build_object(${sql.join(
    keys.map((key) => sql`${sql.raw(`'${all[key]!.name}'`)}, ${all[key]!}`),
    sql`, `,
  )})`;
}

/** What checkInvariants and compareWithModel read of an invoice. */
const INVOICE_AMOUNTS = ["id", "currency", "status", "subtotalAtom", "discountAtom", "taxAtom", "totalAmountAtom", "dueAmountAtom", "paidAmountAtom", "prePaymentCreditNotesAmountAtom", "postPaymentCreditNotesAmountAtom", "creditsAppliedAtom"] as const;
type InvoiceRowAmounts = Pick<typeof invoices.$inferSelect, (typeof INVOICE_AMOUNTS)[number]>;

/**
 * Every row of the customer's money that checkInvariants reads, in one statement: its finalized
 * invoices' amounts and their lines, credit notes, ledger, balances and currency, payments and their
 * refunds. It runs after every step of 10,000 sequences; as seven selects it was a sixth of a
 * shard's CPU (the worker's and PostgreSQL's), most of it the round trips (docs/testing.md).
 */
async function customerMoneyRows(customer: string) {
  const db = await getDb();
  // The customer's payments (through their intents) and finalized invoices: each read by two of the subselects.
  const customersPayments = sql`${payments} inner join ${paymentIntents} on ${paymentIntents.id} = ${payments.paymentIntentId} where ${paymentIntents.customerId} = ${customer}`;
  const finalized = sql`${invoices.customerId} = ${customer} and ${invoices.status} <> 'draft'`;
  const [row] = rowsOf<{
    invoices: Record<string, unknown>[] | null;
    notes: Record<string, unknown>[] | null;
    ledger: Record<string, unknown>[] | null;
    customer: { balances: Record<string, number>; currency: string | null } | null;
    paid: { id: string; invoiceId: string | null; currency: string; status: string; amountAtom: number; refundedAtom: number }[] | null;
    made: Record<string, unknown>[] | null;
    lines: { invoiceId: string; amountAtom: number; discountAtom: number; taxAmounts: (typeof invoiceLines.$inferSelect)["taxAmounts"] }[] | null;
  }>(
    await db.execute(sql`select
      (select json_agg(${columnsAsJson(invoices, INVOICE_AMOUNTS)} order by ${invoices.created}, ${invoices.id}) from ${invoices} where ${finalized}) as invoices,
      (select json_agg(${creditNotes}) from ${creditNotes} where ${creditNotes.customerId} = ${customer}) as notes,
      (select json_agg(${customerBalanceTransactions}) from ${customerBalanceTransactions} where ${customerBalanceTransactions.customerId} = ${customer}) as ledger,
      (select json_build_object('balances', ${customers.balances}, 'currency', ${customers.currency}) from ${customers} where ${customers.id} = ${customer}) as customer,
      (select json_agg(json_build_object('id', ${payments.id}, 'invoiceId', ${paymentIntents.invoiceId}, 'currency', ${payments.currency}, 'status', ${payments.status},
          'amountAtom', ${payments.amountAtom}, 'refundedAtom', ${payments.amountRefundedAtom}))
        from ${customersPayments}) as paid,
      (select json_agg(${refunds}) from ${refunds} where ${refunds.paymentId} in (select ${payments.id} from ${customersPayments})) as made,
      (select json_agg(json_build_object('invoiceId', ${invoiceLines.invoiceId}, 'amountAtom', ${invoiceLines.amountAtom}, 'discountAtom', ${invoiceLines.discountAtom}, 'taxAmounts', ${invoiceLines.taxAmounts}))
        from ${invoiceLines} inner join ${invoices} on ${invoices.id} = ${invoiceLines.invoiceId} where ${finalized}) as lines`),
  );
  return {
    rows: rowsFromJson(invoices, row!.invoices, INVOICE_AMOUNTS),
    notes: rowsFromJson(creditNotes, row!.notes),
    ledger: rowsFromJson(customerBalanceTransactions, row!.ledger),
    customer: row!.customer,
    paid: row!.paid ?? [],
    made: rowsFromJson(refunds, row!.made),
    lines: row!.lines ?? [],
  };
}

/**
 * The invariants, from the rows themselves; 2 and 3 hold in each currency on its own (the
 * customer's invoices, payments, credit notes and balance rows of that currency; no amount is
 * ever converted):
 *
 * 1. per invoice: Σ issued credit notes ≤ total, and = pre-payment + post-payment amounts;
 *    amount due ≥ 0; paid → due 0 and paid = total; open → due = total − balance applied −
 *    pre-payment credit notes − partial payments received (its own settlement, exact);
 * 2. the customer's ledger sums to its balance; each payment's refunded amount is its succeeded refunds;
 * 3. money in = money out + what the customer's money became, as an identity between tables that
 *    no one of them can make true alone:
 *
 *      captured + out_of_band_in − refunded − credit_note_out_of_band
 *        = Σ_finalized (total − pre − post − due) − direct_refunds + (balance − granted)
 *
 *    captured: Σ payments not failed (payments); refunded: Σ succeeded refunds of them (refunds);
 *    out_of_band_in: what the invoices paid out of band had due (the model: the service records no
 *    amount); credit_note_out_of_band: what post-payment credit notes say was returned outside the
 *    service; Σ_finalized: what the customer owed and settled, net of every credit note, from the
 *    invoices' own amounts; direct_refunds: refunds no credit note made (the invoice stays paid and
 *    unchanged, so that money left without reducing what was billed); balance − granted: the credit
 *    the customer's money and credit notes left on the balance, less the ledger rows that are neither
 *    a credit note's credit nor a balance applied to an invoice (the merchant's adjustments; a
 *    credit the service grants, as for unused time on a downgrade, is such a row too). A refund not
 *    recorded, a balance credit applied twice, a credit note whose amounts do not match its refunds,
 *    or a payment collected beyond the due amount breaks it.
 * 4. per invoice: one currency (its credit notes, balance rows and payments are in it), and its
 *    subtotal, discount, tax and total are its lines' own: total = Σ line amounts − Σ line
 *    discounts + Σ exclusive line taxes (− credit grants applied, none here).
 */
export async function checkInvariants(model: Model, where: string): Promise<void> {
  const { rows, notes, ledger, customer, paid, made, lines } = await customerMoneyRows(model.customer);
  const issued = notes.filter((note) => note.status === "issued");
  // Collected, not asserted one by one: the rows are printed once, and only when something is wrong.
  const broken: string[] = [];
  const check = (holds: boolean, what: string) => void (holds || broken.push(what));

  for (const invoice of rows) {
    // 4. One currency per invoice, its total from its own lines: Σ amounts − Σ discounts + Σ exclusive taxes (− credits applied).
    const own = lines.filter((line) => line.invoiceId === invoice.id);
    const taxes = own.flatMap((line) => line.taxAmounts);
    const fromLines = {
      subtotal: sum(own.map((line) => line.amountAtom)),
      discount: sum(own.map((line) => line.discountAtom)),
      tax: sum(taxes.map((tax) => tax.amount_atom)),
      total: sum(own.map((line) => line.amountAtom - line.discountAtom)) + sum(taxes.filter((tax) => !tax.inclusive).map((tax) => tax.amount_atom)) - invoice.creditsAppliedAtom,
    };
    const stated = { subtotal: invoice.subtotalAtom, discount: invoice.discountAtom, tax: invoice.taxAtom, total: invoice.totalAmountAtom };
    check(JSON.stringify(fromLines) === JSON.stringify(stated), `${invoice.id} (${invoice.currency}): its lines add up to ${JSON.stringify(fromLines)}, it states ${JSON.stringify(stated)}`);
    const credited = sum(issued.filter((note) => note.invoiceId === invoice.id).map((note) => note.totalAmountAtom));
    check(credited <= invoice.totalAmountAtom, `${invoice.id}: credit notes ${credited} > total ${invoice.totalAmountAtom}`);
    check(credited === invoice.prePaymentCreditNotesAmountAtom + invoice.postPaymentCreditNotesAmountAtom, `${invoice.id}: credit notes ${credited} ≠ pre + post`);
    check(invoice.dueAmountAtom >= 0, `${invoice.id}: amount due ${invoice.dueAmountAtom} < 0`);
    if (invoice.status === "paid") check(invoice.dueAmountAtom === 0 && invoice.paidAmountAtom === invoice.totalAmountAtom, `${invoice.id}: paid, but due/paid amounts are off`);
    if (invoice.status === "open") {
      const applied = -sum(ledger.filter((row) => row.type === "applied_to_invoice" && row.invoiceId === invoice.id).map((row) => row.amountAtom));
      const received = sum(paid.filter((row) => row.invoiceId === invoice.id && row.status !== "failed").map((row) => row.amountAtom));
      check(invoice.paidAmountAtom === received, `${invoice.id}: paid amount ${invoice.paidAmountAtom} ≠ payments received ${received}`);
      const due = invoice.totalAmountAtom - applied - invoice.prePaymentCreditNotesAmountAtom - received;
      check(invoice.dueAmountAtom === due, `${invoice.id}: amount due ${invoice.dueAmountAtom} ≠ total − balance applied − pre-payment credit notes − received (${due})`);
    }
  }

  const balances = customer?.balances ?? {};
  const succeeded = made.filter((row) => row.status === "succeeded");
  for (const payment of paid) {
    const refundedAtom = sum(succeeded.filter((row) => row.paymentId === payment.id).map((row) => row.amountAtom));
    check(payment.refundedAtom === refundedAtom, `${payment.id}: amount refunded ${payment.refundedAtom} ≠ its succeeded refunds ${refundedAtom}`);
  }
  for (const invoice of rows) {
    const inOther = [...issued.filter((note) => note.invoiceId === invoice.id), ...ledger.filter((row) => row.invoiceId === invoice.id), ...paid.filter((row) => row.invoiceId === invoice.id)].filter((row) => row.currency !== invoice.currency);
    check(inOther.length === 0, `${invoice.id} (${invoice.currency}): its credit notes, balance rows and payments are in ${invoice.currency} only, not ${inOther.map((row) => row.currency).join(", ")}`);
  }

  const currencies = new Set([...Object.keys(balances), ...rows.map((row) => row.currency), ...ledger.map((row) => row.currency), ...paid.map((row) => row.currency)]);
  for (const code of currencies) {
    const balance = balances[code] ?? 0;
    const ledgerIn = ledger.filter((row) => row.currency === code);
    const ledgerSum = sum(ledgerIn.map((row) => row.amountAtom));
    check(ledgerSum === balance, `${code}: ledger sums to ${ledgerSum}, balance is ${balance}`);
    const paidIn = paid.filter((row) => row.currency === code);
    const paidIds = new Set(paidIn.map((row) => row.id));
    const succeededIn = succeeded.filter((row) => paidIds.has(row.paymentId));
    const issuedIn = issued.filter((note) => note.currency === code);
    const captured = sum(paidIn.filter((row) => row.status !== "failed").map((row) => row.amountAtom));
    const refunded = sum(succeededIn.map((row) => row.amountAtom));
    const byNotes = new Set(issuedIn.flatMap((note) => note.refundIds));
    const directRefunds = sum(succeededIn.filter((row) => !byNotes.has(row.id)).map((row) => row.amountAtom));
    const noteOutOfBand = sum(issuedIn.map((note) => note.outOfBandAmountAtom));
    const settled = sum(rows.filter((row) => row.currency === code && row.status !== "void").map((row) => row.totalAmountAtom - row.prePaymentCreditNotesAmountAtom - row.postPaymentCreditNotesAmountAtom - row.dueAmountAtom));
    // Credit no payment or credit note made: the merchant's adjustments (and any credit the service grants, e.g. for a downgrade).
    // A void's return of what its invoice applied (RULES-42 4) undoes an `applied_to_invoice` row: neither is granted.
    const granted = sum(ledgerIn.filter((row) => !["applied_to_invoice", "credit_note", "invoice_voided"].includes(row.type)).map((row) => row.amountAtom));
    const kept = captured + (model.outOfBandIn[code] ?? 0) - refunded - noteOutOfBand;
    const became = settled - directRefunds + balance - granted;
    check(kept === became, `${code}: money in − money out = ${kept}, but settled − direct refunds + balance − granted = ${became}`);
  }

  compareWithModel(model, rows, notes, paid, balances, customer?.currency ?? null, check);

  if (broken.length > 0) {
    const seen = { customer: model.customer, currency: model.currency, balances: model.balances, invoices: model.invoices.map(({ credited, ...invoice }) => ({ ...invoice, credited: [...credited] })), notes: model.notes };
    throw new Error(`${where}:\n${broken.join("\n")}\nthe model: ${JSON.stringify(seen)}\nthe rows: ${JSON.stringify({ rows, notes, ledger, paid, made })}`);
  }
}
