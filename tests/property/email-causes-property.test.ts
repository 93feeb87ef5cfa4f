import { and, eq } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { accounts, emails, events, invoices, paymentIntents } from "@/db/schema";
import { updateAccountSettings } from "@/lib/account-settings/service";
import { advanceClock, runDueTransitions, systemContext } from "@/lib/clock/service";
import type { ServiceContext } from "@/lib/context";
import { CreditNoteCreateInput } from "@/lib/credit-notes/schema";
import { createCreditNote } from "@/lib/credit-notes/service";
import { CustomerCreateInput, CustomerUpdateInput } from "@/lib/customers/schema";
import { createCustomer, deleteCustomer, updateCustomer } from "@/lib/customers/service";
import { enqueueFinalNotice, enqueueForEvent } from "@/lib/email-outbox/enqueue";
import { SWITCHABLE_EMAIL_TYPES, type EmailType } from "@/lib/email-outbox/types";
import { sendInvoice } from "@/lib/emails/service";
import { ServiceError } from "@/lib/errors";
import { withChangeTransaction } from "@/lib/events/transaction";
import { InvoiceCreateInput, InvoicePayInput } from "@/lib/invoices/schema";
import { createInvoice, finalizeInvoice } from "@/lib/invoices/service";
import { markInvoiceUncollectible, payInvoice, voidInvoice } from "@/lib/invoices/settle";
import { createOrganization } from "@/lib/organizations/service";
import { requestPortalSignIn } from "@/lib/portal/sign-in";
import { PriceCreateInput } from "@/lib/prices/schema";
import { createPrice } from "@/lib/prices/service";
import { ProductCreateInput } from "@/lib/products/schema";
import { createProduct } from "@/lib/products/service";
import { SubscriptionCancelInput, SubscriptionCreateInput } from "@/lib/subscriptions/schema";
import { cancelSubscription, createSubscription } from "@/lib/subscriptions/service";
import { DAY_MS } from "@/lib/time";
import { runOnLanes } from "../helpers/property-lanes";

/*
 * Issue #37's email property (docs/emails.md, "Exactly once per cause"): over random sequences of
 * billing actions and test-clock advances, on an account whose per-type email switches are drawn
 * at random (and switched again mid-sequence), the outbox holds exactly one email per cause whose
 * type is switched on, and nothing else: none missing, none for a switched-off type, none twice.
 *
 * The actions: customers (with 0–2 extra `invoice_emails` recipients, replaced later, and
 * deleted), invoices of any amount
 * (0 included) finalized `charge_automatically` or `send_invoice`, payments with the sandbox
 * methods (succeeds, declined, requires action, partially funded) and out of band, the invoice
 * sent on demand, credit notes (pre- and post-payment), the merchant marking an invoice
 * uncollectible (no final notice), subscriptions with and without a trial, either collection
 * method and a succeeding, declined or action-requiring method, cancellations now and at the
 * period end, clock advances of 1–40 days (trial ends, `invoice.upcoming`, renewals, dunning
 * retries and its end), portal sign-in links for known and unknown emails, and switch changes.
 *
 * The model (below, using nothing of lib/email-outbox but the list of type names) derives the
 * causes from what happened: the actions it took (the invoice sent on demand, the portal link, the
 * merchant's own marking) and the events each step left in the account, mapped to templates by
 * docs/emails.md's table, with the recipients it gave its customers. It also checks the actions
 * against those events (a declined pay of an open invoice left an `invoice.payment_failed` of it,
 * a created credit note its `credit_note.created`, …) and keeps its own clock of trial notices
 * (each trialing subscription's, due 3 days before its trial ends, none after a cancellation), so
 * a cause that lost its event, or an event without its cause, is caught too; and that no object
 * has a once-only cause twice (two receipts of one invoice, two trial notices of one
 * subscription, …). After every step the account's outbox rows, as (type,
 * customer, invoice, credit note, event, recipients), must be the model's multiset.
 *
 * The duplicate job: after every clock advance the account's due work runs again (as a second
 * cron tick would), and at the end of each sequence every event's enqueue and every final notice
 * is replayed in one transaction (lib/email-outbox's own enqueue functions, called again): the
 * unique cause key must make all of it insert nothing.
 *
 * Not driven here: the sending pass itself (lib/emails/send.ts; its claims, retries and crash
 * window are proven against a real SMTP server by tests/api/emails.test.ts and
 * emails-faults.test.ts) and the settings page's `test` email, which has no billing cause.
 *
 * A customer deleted mid-sequence is written to no more (its subscription's trial notice and its
 * cancellation at the period end, a payment of its open invoice: no email); the invoice the
 * merchant sends on demand still goes to the addresses it had.
 *
 * `PROPERTY_SEQUENCES=<n>` sets how many (default 160: 50–90 s on a 2-core machine at load 4–6);
 * `FC_SEED=<n>` replays a run.
 */

const SEQUENCES = Number(process.env.PROPERTY_SEQUENCES ?? 160);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
const LANES = 2;
const PLAN_AMOUNT_ATOM = 1500;

const arbSwitches = fc.subarray([...SWITCHABLE_EMAIL_TYPES], { minLength: 0, maxLength: 4 });
// Declined twice as often: dunning's end (the final notice) needs a declined renewal and 7 more days.
const arbCardMethod = fc.constantFrom("pm_sandbox_succeeds", "pm_sandbox_declined", "pm_sandbox_declined", "pm_sandbox_requires_action");

const arbStep = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("customer" as const), extra: fc.integer({ min: 0, max: 2 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("invoice" as const),
      customer: fc.nat(),
      amount: fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 5, arbitrary: fc.integer({ min: 1, max: 5000 }) }),
      sendInvoice: fc.boolean(),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant("pay" as const),
      invoice: fc.nat(),
      method: fc.constantFrom("pm_sandbox_succeeds", "pm_sandbox_declined", "pm_sandbox_requires_action", "pm_sandbox_partially_funded", "out_of_band"),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("send" as const), invoice: fc.nat() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("creditNote" as const), invoice: fc.nat(), percent: fc.integer({ min: 1, max: 100 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("markUncollectible" as const), invoice: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("void" as const), invoice: fc.nat() }) },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant("subscribe" as const),
      customer: fc.nat(),
      trialDays: fc.option(fc.integer({ min: 1, max: 14 }), { nil: null }),
      sendInvoice: fc.constantFrom(false, false, true),
      method: arbCardMethod,
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("cancel" as const), subscription: fc.nat(), atPeriodEnd: fc.boolean() }) },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant("advance" as const), days: fc.integer({ min: 1, max: 40 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("portal" as const), customer: fc.nat(), known: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("switches" as const), disabled: arbSwitches }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("recipients" as const), customer: fc.nat(), extra: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("delete" as const), customer: fc.nat() }) },
);
const arbSequence = fc.record({ disabled: arbSwitches, steps: fc.array(arbStep, { minLength: 2, maxLength: 10 }) });
type Sequence = typeof arbSequence extends fc.Arbitrary<infer T> ? T : never;

/** One expected outbox row, as the model derives it. */
type Expected = { type: EmailType; customer: string; invoice: string | null; creditNote: string | null; event: string | null; to: string[] };
type EventRow = { id: string; type: string; aggregateId: string; data: Record<string, unknown> };

/** The model's side of one sequence. */
type Model = {
  disabled: Set<string>;
  customers: { id: string; email: string; invoiceEmails: string[]; deleted: boolean }[];
  /** Invoices the sequence can act on: made by its steps, and those its subscriptions' events showed. */
  invoices: string[];
  invoiceCustomer: Map<string, string>;
  subscriptions: string[];
  subscriptionCustomer: Map<string, string>;
  seenEvents: Set<string>;
  expected: Expected[];
  /** The `invoice.marked_uncollectible` events of the merchant's own marking (no final notice). */
  merchantMarked: Set<string>;
  /** Dunning's `invoice.marked_uncollectible` events, with their invoice, for the duplicate replay. */
  dunningMarked: { event: string; invoice: string }[];
  /** Events whose email a switch (or the customer's deletion) held back: a replay now, with the switch on, would rightly queue it. */
  heldBack: Set<string>;
};

/**
 * The templates of docs/emails.md's table, keyed by the causing event type: written here from the
 * documentation, not read from lib/email-outbox/enqueue.ts. `invoice.finalized` is the `invoice`
 * email only when `send_invoice` with an amount due; `invoice.marked_uncollectible` is the final
 * notice only when dunning ended (model.merchantMarked tells the merchant's own).
 */
const TEMPLATE_OF_EVENT: Readonly<Record<string, EmailType>> = {
  "invoice.finalized": "invoice",
  "invoice.paid": "receipt",
  "invoice.payment_failed": "payment_failed",
  "invoice.payment_action_required": "payment_action_required",
  "invoice.marked_uncollectible": "final_notice",
  "credit_note.created": "credit_note",
  "customer.subscription.trial_will_end": "trial_ending",
  "invoice.upcoming": "upcoming_renewal",
  "customer.subscription.cancelled": "subscription_cancelled",
};
const ABOUT_SUBSCRIPTION: ReadonlySet<EmailType> = new Set(["trial_ending", "upcoming_renewal", "subscription_cancelled"]);

/** Causes that happen at most once per object: the object each is about. */
const ONCE_PER_OBJECT: Readonly<Partial<Record<EmailType, (row: Expected, event: EventRow) => string>>> = {
  receipt: (row) => row.invoice!,
  final_notice: (row) => row.invoice!,
  credit_note: (row) => row.creditNote!,
  trial_ending: (_, event) => event.aggregateId,
  upcoming_renewal: (_, event) => event.aggregateId,
  subscription_cancelled: (_, event) => event.aggregateId,
};

/** What the run exercised, so a generator that stopped reaching a cause fails instead of passing vacuously. */
const seen = new Map<string, number>();
const count = (what: string) => seen.set(what, (seen.get(what) ?? 0) + 1);

/** The customer's address and extra invoice recipients as they are now; none once the customer is deleted. */
function recipientsOf(model: Model, customerId: string): string[] {
  const customer = model.customers.find((candidate) => candidate.id === customerId);
  if (!customer) throw new Error(`an event names customer ${customerId}, not one of the sequence's`);
  return customer.deleted ? [] : [customer.email, ...customer.invoiceEmails];
}

/** The email (if any) the model says `event` causes, with the switches as they are. */
function causeOfEvent(model: Model, event: EventRow): Expected | null {
  const type = TEMPLATE_OF_EVENT[event.type];
  if (!type) return null;
  const data = event.data;
  if (type === "invoice" && !(data.collection_method === "send_invoice" && Number(data.due_amount_atom) > 0)) return null;
  if (type === "final_notice") {
    if (model.merchantMarked.has(event.id)) return null;
    model.dunningMarked.push({ event: event.id, invoice: event.aggregateId });
  }
  // The customer the model gave the object: its own invoice's or subscription's, else (a renewal) its subscription's.
  const subscription = typeof data.subscription === "string" ? data.subscription : event.type.startsWith("customer.subscription.") ? event.aggregateId : null;
  const invoice = type === "credit_note" ? String(data.invoice) : event.aggregateId;
  const customer = (type === "credit_note" || !ABOUT_SUBSCRIPTION.has(type) ? model.invoiceCustomer.get(invoice) : undefined) ?? (subscription ? model.subscriptionCustomer.get(subscription) : undefined);
  if (!customer) throw new Error(`${event.type} ${event.id}: the model knows no customer of ${event.aggregateId}`);
  expect(data.customer, `${event.type} ${event.id}'s customer`).toBe(customer);
  count(`cause ${type}`);
  const to = recipientsOf(model, customer);
  if (to.length === 0) {
    count(`deleted customer ${type}`);
    model.heldBack.add(event.id);
    return null;
  }
  if (model.disabled.has(type)) {
    count(`switched off ${type}`);
    model.heldBack.add(event.id);
    return null;
  }
  return {
    type,
    customer,
    invoice: ABOUT_SUBSCRIPTION.has(type) ? null : invoice,
    creditNote: type === "credit_note" ? event.aggregateId : null,
    event: event.id,
    to,
  };
}

/** The account's events the model has not seen yet, oldest first; invoices of its subscriptions join the model's. */
async function newEvents(model: Model, accountId: string): Promise<EventRow[]> {
  const db = await getDb();
  const rows = await db
    .select({ id: events.id, type: events.type, aggregateId: events.aggregateId, data: events.data })
    .from(events)
    .where(eq(events.accountId, accountId))
    .orderBy(events.created, events.id);
  const fresh = rows.filter((row) => !model.seenEvents.has(row.id));
  for (const row of fresh) {
    model.seenEvents.add(row.id);
    if (row.type === "invoice.created" && typeof row.data.subscription === "string" && !model.invoiceCustomer.has(row.aggregateId)) {
      model.invoices.push(row.aggregateId);
      model.invoiceCustomer.set(row.aggregateId, String(row.data.customer));
    }
  }
  return fresh;
}

const keyOf = (row: Expected) => [row.type, row.customer, row.invoice ?? "-", row.creditNote ?? "-", row.event ?? "-", [...row.to].sort().join(",")].join(" | ");

/** The account's outbox, as the model's rows. */
async function outbox(accountId: string): Promise<string[]> {
  const db = await getDb();
  const rows = await db.select().from(emails).where(eq(emails.accountId, accountId));
  return rows
    .map((row) => keyOf({ type: row.type as EmailType, customer: row.customerId ?? "-", invoice: row.invoiceId, creditNote: row.creditNoteId, event: row.eventId, to: row.to }))
    .sort();
}

/** A refusal of the verb (409, 422) answers null; anything else fails the test. */
async function refusedOr<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ServiceError && (error.category === "conflict" || error.category === "validation")) return null;
    throw error;
  }
}

async function invoiceRow(id: string) {
  const db = await getDb();
  const [row] = await db.select().from(invoices).where(eq(invoices.id, id));
  if (!row) throw new Error(`no invoice ${id}`);
  return row;
}

type Lane = { index: number; sequences: number };

async function runSequence(lane: Lane, sequence: Sequence): Promise<void> {
  const db = await getDb();
  const { sandboxAccountId: accountId } = await createOrganization(db, { name: `Email lane ${lane.index}.${lane.sequences++}` });
  const offset = { ms: 0 };
  let requests = 0;
  const ctx: ServiceContext = { accountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date(Date.now() + offset.ms) };
  const product = (await createProduct({ ctx, input: ProductCreateInput.parse({ name: "Plan" }) })).id;
  const price = (await createPrice({ ctx, input: PriceCreateInput.parse({ product, currency: "usd", type: "recurring", unit_amount_atom: PLAN_AMOUNT_ATOM, recurring: { interval: "month" } }) })).id;
  const setSwitches = async (disabled: readonly string[]) => {
    await updateAccountSettings({ ctx, input: { email_types_disabled: [...disabled] } });
    model.disabled = new Set(disabled);
  };
  const model: Model = {
    disabled: new Set(),
    customers: [],
    invoices: [],
    invoiceCustomer: new Map(),
    subscriptions: [],
    subscriptionCustomer: new Map(),
    seenEvents: new Set(),
    expected: [],
    merchantMarked: new Set(),
    dunningMarked: [],
    heldBack: new Set(),
  };
  await setSwitches(sequence.disabled);
  const addCustomer = async (extra: number) => {
    const n = model.customers.length;
    const email = `customer-${n}@example.com`;
    const invoiceEmails = extraRecipients(n, extra, 0);
    const made = await createCustomer({ ctx, input: CustomerCreateInput.parse({ email, ...(extra > 0 ? { invoice_emails: invoiceEmails } : {}) }) });
    model.customers.push({ id: made.id, email, invoiceEmails, deleted: false });
  };
  const extraRecipients = (n: number, extra: number, round: number) => Array.from({ length: extra }, (_, index) => `accounts-${n}-${round}-${index}@example.com`);
  await addCustomer(1);
  const pick = <T>(list: readonly T[], index: number): T | undefined => (list.length === 0 ? undefined : list[index % list.length]);
  /** The customers not deleted: the only ones new invoices and subscriptions are for. */
  const live = () => model.customers.filter((customer) => !customer.deleted);
  const onceSeen = new Map<string, string>();
  /**
   * The model's own clock of trial notices (docs/billing.md: `trial_will_end` 3 days before the
   * trial ends, once, while the subscription is trialing): each trialing subscription's notice
   * instant, until its notice came or it was cancelled at once.
   */
  const trialNotices = new Map<string, number>();

  for (const [stepIndex, step] of sequence.steps.entries()) {
    /** What the step's action says its events must include: (event type, aggregate id). */
    const mustEmit: [string, string][] = [];
    let merchantMarking = false;
    if (step.kind === "customer") await addCustomer(step.extra);
    else if (step.kind === "recipients" || step.kind === "delete") {
      const customer = pick(live(), step.customer);
      if (customer === undefined) continue;
      if (step.kind === "delete") {
        await deleteCustomer({ ctx, input: { id: customer.id } });
        customer.deleted = true;
      } else {
        // Replaced: the emails of later causes go to the new list, those already queued keep theirs.
        customer.invoiceEmails = extraRecipients(model.customers.indexOf(customer), step.extra, stepIndex + 1);
        await updateCustomer({ ctx, input: { id: customer.id, changes: CustomerUpdateInput.parse({ invoice_emails: customer.invoiceEmails }) } });
      }
    } else if (step.kind === "invoice") {
      const customer = pick(live(), step.customer)?.id;
      if (customer === undefined) continue;
      const draft = await createInvoice({
        ctx,
        input: InvoiceCreateInput.parse({
          customer,
          currency: "usd",
          lines: [{ unit_amount_atom: step.amount, quantity: 1, description: "Work" }],
          ...(step.sendInvoice ? { collection_method: "send_invoice", days_until_due: 14 } : {}),
        }),
      });
      model.invoices.push(draft.invoice.id);
      model.invoiceCustomer.set(draft.invoice.id, customer);
      const open = await finalizeInvoice({ ctx, input: { id: draft.invoice.id } });
      mustEmit.push(["invoice.finalized", open.invoice.id]);
      // Finalized at zero (or paid in full by the customer's balance) is paid at once.
      if (open.invoice.status === "paid") mustEmit.push(["invoice.paid", open.invoice.id]);
    } else if (step.kind === "pay") {
      const id = pick(model.invoices, step.invoice);
      if (id === undefined) continue;
      const before = await invoiceRow(id);
      const payment = InvoicePayInput.parse(step.method === "out_of_band" ? { paid_out_of_band: true } : { payment_method: step.method });
      const paid = await refusedOr(() => payInvoice({ ctx, input: { id, payment } }));
      if (paid !== null && (before.status === "open" || before.status === "uncollectible")) {
        if (step.method === "pm_sandbox_declined") mustEmit.push(["invoice.payment_failed", id]);
        else if (step.method === "pm_sandbox_requires_action") mustEmit.push(["invoice.payment_action_required", id]);
        else if (step.method !== "pm_sandbox_partially_funded" || paid.invoice.status === "paid") mustEmit.push(["invoice.paid", id]);
      }
    } else if (step.kind === "send") {
      const id = pick(model.invoices, step.invoice);
      if (id === undefined) continue;
      const sent = await refusedOr(() => sendInvoice({ ctx: { ...ctx, requestId: `req_email_property_${accountId}_${requests++}` }, input: { id } }));
      const status = (await invoiceRow(id)).status;
      // Sent on demand: its own cause (the request), when the invoice is finalized and the type switched on; a 409 otherwise.
      const sendable = status !== "draft" && status !== "void" && !model.disabled.has("invoice");
      expect(sent !== null, `sending ${status} invoice ${id} with invoice emails ${model.disabled.has("invoice") ? "off" : "on"}`).toBe(sendable);
      if (sent !== null) {
        const customer = model.customers.find((candidate) => candidate.id === model.invoiceCustomer.get(id))!;
        // The merchant's explicit request: to the addresses the customer had, even once deleted.
        model.expected.push({ type: "invoice", customer: customer.id, invoice: id, creditNote: null, event: null, to: [customer.email, ...customer.invoiceEmails] });
        count("cause invoice sent on demand");
      }
    } else if (step.kind === "creditNote") {
      const id = pick(model.invoices, step.invoice);
      if (id === undefined) continue;
      const invoice = await invoiceRow(id);
      const amount = Math.max(1, Math.floor((invoice.totalAmountAtom * step.percent) / 100));
      const settle = invoice.status === "paid" ? { out_of_band_amount_atom: amount } : {};
      const note = await refusedOr(() => createCreditNote({ ctx, input: CreditNoteCreateInput.parse({ invoice: id, amount_atom: amount, reason: "order_change", ...settle }) }));
      if (note !== null) mustEmit.push(["credit_note.created", note.id]);
    } else if (step.kind === "markUncollectible") {
      const id = pick(model.invoices, step.invoice);
      if (id === undefined) continue;
      merchantMarking = (await refusedOr(() => markInvoiceUncollectible({ ctx, input: { id } }))) !== null;
      if (merchantMarking) mustEmit.push(["invoice.marked_uncollectible", id]);
    } else if (step.kind === "void") {
      const id = pick(model.invoices, step.invoice);
      if (id === undefined) continue;
      if ((await refusedOr(() => voidInvoice({ ctx, input: { id } }))) !== null) mustEmit.push(["invoice.voided", id]);
    } else if (step.kind === "subscribe") {
      const customer = pick(live(), step.customer)?.id;
      if (customer === undefined) continue;
      const made = await refusedOr(() =>
        createSubscription({
          ctx,
          input: SubscriptionCreateInput.parse({
            customer,
            items: [{ price, quantity: 1 }],
            default_payment_method: step.method,
            ...(step.trialDays === null ? {} : { trial_period_days: step.trialDays }),
            ...(step.sendInvoice ? { collection_method: "send_invoice", days_until_due: 7 } : {}),
          }),
        }),
      );
      if (made === null) continue;
      if (made.subscription.status === "trialing") trialNotices.set(made.subscription.id, made.subscription.trialEnd!.getTime() - 3 * DAY_MS);
      model.subscriptions.push(made.subscription.id);
      model.subscriptionCustomer.set(made.subscription.id, customer);
    } else if (step.kind === "cancel") {
      const id = pick(model.subscriptions, step.subscription);
      if (id === undefined) continue;
      const cancelled = await refusedOr(() => cancelSubscription({ ctx, input: { id, options: SubscriptionCancelInput.parse({ at_period_end: step.atPeriodEnd }) } }));
      if (cancelled !== null && !step.atPeriodEnd) {
        mustEmit.push(["customer.subscription.cancelled", id]);
        trialNotices.delete(id);
      }
    } else if (step.kind === "advance") {
      const to = ctx.now().getTime() + step.days * DAY_MS;
      offset.ms = (await advanceClock({ ctx, input: { to: new Date(to) } })).offsetMs;
      for (const [subscription, noticeAt] of trialNotices) {
        if (noticeAt > to) continue;
        mustEmit.push(["customer.subscription.trial_will_end", subscription]);
        trialNotices.delete(subscription);
      }
      // The duplicate job: the account's due work run again at once, as a second cron tick would.
      const [account] = await db.select({ id: accounts.id, livemode: accounts.livemode, clockOffsetMs: accounts.clockOffsetMs }).from(accounts).where(eq(accounts.id, accountId));
      await runDueTransitions(systemContext(account!));
    } else if (step.kind === "portal") {
      const customer = pick(model.customers, step.customer)!;
      const known = step.known && !customer.deleted;
      await requestPortalSignIn({ accountId, email: step.known ? customer.email.toUpperCase() : `nobody-${customer.email}` });
      if (known) {
        count("cause portal_link");
        // The portal link goes to the customer's own address only, not the invoice recipients.
        if (!model.disabled.has("portal_link")) model.expected.push({ type: "portal_link", customer: customer.id, invoice: null, creditNote: null, event: null, to: [customer.email] });
      }
    } else await setSwitches(step.disabled);

    const fresh = await newEvents(model, accountId);
    for (const [type, aggregate] of mustEmit) {
      expect(
        fresh.some((event) => event.type === type && event.aggregateId === aggregate),
        `step ${stepIndex} (${JSON.stringify(step)}) must have emitted ${type} of ${aggregate}; it emitted ${JSON.stringify(fresh.map((event) => [event.type, event.aggregateId]))}`,
      ).toBe(true);
    }
    // Nor a trial notice the model did not expect (a second one, one after a cancellation, one early).
    for (const event of fresh.filter((candidate) => candidate.type === "customer.subscription.trial_will_end")) {
      expect(mustEmit, `step ${stepIndex} (${JSON.stringify(step)}): a trial notice of ${event.aggregateId} the model did not expect`).toContainEqual(["customer.subscription.trial_will_end", event.aggregateId]);
    }
    for (const event of fresh) {
      if (merchantMarking && event.type === "invoice.marked_uncollectible") model.merchantMarked.add(event.id);
      const cause = causeOfEvent(model, event);
      if (cause === null) continue;
      const object = ONCE_PER_OBJECT[cause.type]?.(cause, event);
      if (object !== undefined) {
        const earlier = onceSeen.get(`${cause.type} ${object}`);
        expect(earlier, `a second ${cause.type} cause of ${object} (${event.id}; the first ${earlier})`).toBeUndefined();
        onceSeen.set(`${cause.type} ${object}`, event.id);
      }
      model.expected.push(cause);
    }
    expect(await outbox(accountId), `the outbox after step ${stepIndex} (${JSON.stringify(step)})`).toEqual(model.expected.map(keyOf).sort());
  }

  // The duplicate job: every event's email and every final notice enqueued again, in one transaction:
  // nothing new. Not those a switch held back: the switches may be on by now (a replay is no real path).
  const before = await outbox(accountId);
  const all = (await db.select().from(events).where(eq(events.accountId, accountId))).filter((event) => !model.heldBack.has(event.id));
  await withChangeTransaction(async (tx) => {
    for (const event of all) await enqueueForEvent(tx, ctx, { id: event.id, type: event.type, aggregateId: event.aggregateId, data: event.data });
    for (const marked of model.dunningMarked.filter((marked) => !model.heldBack.has(marked.event))) {
      const [invoice] = await tx.select().from(invoices).where(and(eq(invoices.accountId, accountId), eq(invoices.id, marked.invoice)));
      await enqueueFinalNotice(tx, ctx, { id: invoice!.id, number: invoice!.number, customerId: invoice!.customerId }, marked.event);
    }
  });
  expect(await outbox(accountId), "the outbox after every cause was enqueued again").toEqual(before);
  count("sequences");
}

describe("emails and their causes (property, in-process)", () => {
  let lanes: Lane[];
  beforeAll(() => {
    lanes = Array.from({ length: LANES }, (_, index) => ({ index, sequences: 0 }));
  });

  it(`${SEQUENCES} sequences: one email per cause with its type on, none with it off, none twice (seed ${SEED})`, async () => {
    console.log(`email causes property: FC_SEED=${SEED}`);
    const runAll = (sequences: Sequence[], seed: number) => runOnLanes(lanes, sequences, `FC_SEED=${seed}`, runSequence);
    await runAll(fc.sample(arbSequence, { seed: SEED, numRuns: SEQUENCES }), SEED);
    // Not vacuous: every cause kind reached, and held back by a switch and by a deletion somewhere.
    // A sample that missed one (seed 2025383692 drew no cause after a deletion in 160 sequences,
    // where about 5 is usual) draws more sequences, 40 at a time, at most 160 more: a generator
    // that cannot reach a kind still fails.
    const kinds = [...Object.values(TEMPLATE_OF_EVENT), "invoice sent on demand", "portal_link"];
    const held = (prefix: string) => [...seen].filter(([what]) => what.startsWith(prefix)).reduce((sum, [, n]) => sum + n, 0);
    const unreached = () => [...kinds.filter((kind) => !seen.has(`cause ${kind}`)).map((kind) => `cause ${kind}`), ...["switched off", "deleted customer"].filter((prefix) => held(prefix) === 0)];
    let extra = 0;
    for (let round = 1; SEQUENCES >= 100 && unreached().length > 0 && round <= 4; round++) {
      console.log(`email causes property: not yet reached ${JSON.stringify(unreached())}; 40 more sequences (FC_SEED=${SEED + round})`);
      await runAll(fc.sample(arbSequence, { seed: SEED + round, numRuns: 40 }), SEED + round);
      extra += 40;
    }
    console.log(`email causes property: ${JSON.stringify(Object.fromEntries([...seen].sort()))}`);
    expect(seen.get("sequences")).toBe(SEQUENCES + extra);
    if (SEQUENCES >= 100) expect(unreached(), "cause kinds, switches and deletions never reached").toEqual([]);
  }, 600_000);

  // Found by the property: the outbox read a deleted customer's addresses like a live one's, so the
  // clock went on writing to them (the trial notice, the cancellation at the trial's end).
  it("queues no email to a deleted customer for the causes that follow the deletion", async () => {
    const db = await getDb();
    const { sandboxAccountId: accountId } = await createOrganization(db, { name: "Email deleted customer" });
    const offset = { ms: 0 };
    const ctx: ServiceContext = { accountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date(Date.now() + offset.ms) };
    const product = (await createProduct({ ctx, input: ProductCreateInput.parse({ name: "Plan" }) })).id;
    const price = (await createPrice({ ctx, input: PriceCreateInput.parse({ product, currency: "usd", type: "recurring", unit_amount_atom: PLAN_AMOUNT_ATOM, recurring: { interval: "month" } }) })).id;
    const customer = (await createCustomer({ ctx, input: CustomerCreateInput.parse({ email: "gone@example.com", invoice_emails: ["ap@example.com"] }) })).id;
    const made = await createSubscription({ ctx, input: SubscriptionCreateInput.parse({ customer, items: [{ price, quantity: 1 }], trial_period_days: 10, default_payment_method: "pm_sandbox_succeeds" }) });
    const before = await outbox(accountId);
    await deleteCustomer({ ctx, input: { id: customer } });
    offset.ms = (await advanceClock({ ctx, input: { to: new Date(ctx.now().getTime() + 11 * DAY_MS) } })).offsetMs;
    const caused = await db.select({ type: events.type }).from(events).where(and(eq(events.accountId, accountId), eq(events.aggregateId, made.subscription.id)));
    // The causes happened (the trial notice, the cancellation the deletion leads to at the trial's end) …
    expect(caused.map((event) => event.type)).toEqual(expect.arrayContaining(["customer.subscription.trial_will_end", "customer.subscription.cancelled"]));
    // … and wrote to nobody.
    expect(await outbox(accountId)).toEqual(before);
  });

  // Found by the property: a dunning retry of a deleted customer's invoice charged its method, which
  // the payments refuse (422 "No such customer"), and that refusal stopped the account's clock.
  it("runs dunning to its end when the customer was deleted while in it, charging nothing and emailing nobody", async () => {
    const db = await getDb();
    const { sandboxAccountId: accountId } = await createOrganization(db, { name: "Email deleted customer in dunning" });
    const offset = { ms: 0 };
    const ctx: ServiceContext = { accountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date(Date.now() + offset.ms) };
    const advance = async (days: number) => {
      offset.ms = (await advanceClock({ ctx, input: { to: new Date(ctx.now().getTime() + days * DAY_MS) } })).offsetMs;
    };
    const product = (await createProduct({ ctx, input: ProductCreateInput.parse({ name: "Plan" }) })).id;
    const price = (await createPrice({ ctx, input: PriceCreateInput.parse({ product, currency: "usd", type: "recurring", unit_amount_atom: PLAN_AMOUNT_ATOM, recurring: { interval: "month" } }) })).id;
    const customer = (await createCustomer({ ctx, input: CustomerCreateInput.parse({ email: "lapsed@example.com" }) })).id;
    const made = await createSubscription({ ctx, input: SubscriptionCreateInput.parse({ customer, items: [{ price, quantity: 1 }], trial_period_days: 1, default_payment_method: "pm_sandbox_declined" }) });
    // The trial's end bills the first period; its charge is declined: dunning begins.
    await advance(2);
    const billed = await db.select().from(invoices).where(and(eq(invoices.subscriptionId, made.subscription.id), eq(invoices.status, "open")));
    expect(billed.map((invoice) => invoice.attemptCount)).toEqual([1]);
    await deleteCustomer({ ctx, input: { id: customer } });
    const before = await outbox(accountId);
    const intents = async () => (await db.select({ id: paymentIntents.id }).from(paymentIntents).where(eq(paymentIntents.invoiceId, billed[0]!.id))).length;
    const charged = await intents();
    await advance(10);
    expect(await intents(), "payment intents after the deletion").toBe(charged);
    const [after] = await db.select().from(invoices).where(eq(invoices.id, billed[0]!.id));
    expect({ status: after!.status, attempts: after!.attemptCount }).toEqual({ status: "uncollectible", attempts: 4 });
    const caused = await db.select({ type: events.type }).from(events).where(and(eq(events.accountId, accountId), eq(events.aggregateId, made.subscription.id), eq(events.type, "customer.subscription.cancelled")));
    expect(caused).toHaveLength(1);
    expect(await outbox(accountId)).toEqual(before);
  });
});
