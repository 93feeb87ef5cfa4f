import { and, eq, isNull, ne } from "drizzle-orm";
import type { z } from "zod";
import { getDb, type Executor } from "@/db/client";
import { customers, subscriptions } from "@/db/schema";
import type { Verb } from "@/lib/context";
import { notFound, ServiceError, validationFailed, type FieldError } from "@/lib/errors";
import { storedStep, refuseMeteredQuantities } from "@/lib/subscription-changes/steps";
import { itemsOf } from "@/lib/subscriptions/core";
import { upcomingInvoices, type UpcomingInvoices } from "@/lib/subscriptions/upcoming";
import type { InvoicePreviewInput, InvoicePreviewObject } from "./preview-schema";
import type { InvoicePreview } from "@/lib/invoices/preview";
import { serializeInvoice } from "@/lib/invoices/serialize";

/*
 * `POST /invoices/preview`: the next invoice of a customer's subscription as it would be finalized,
 * optionally with a change applied, stored nowhere (docs/rules/invoices.md, "Invoice previews"). It
 * reads in one READ ONLY transaction: PostgreSQL itself refuses any write it would attempt.
 */

type Input = z.output<typeof InvoicePreviewInput>;
export type InvoicePreviewResult = UpcomingInvoices & { prorationDate: Date | null };

/** The subscription to preview: the one named (of this customer), else the customer's only live one. */
async function subscriptionToPreview(executor: Executor, accountId: string, input: Input) {
  const [customer] = await executor
    .select({ id: customers.id })
    .from(customers)
    .where(and(eq(customers.accountId, accountId), eq(customers.id, input.customer), isNull(customers.deletedAt)));
  if (!customer) throw notFound("customer", input.customer);
  if (input.subscription !== undefined) {
    const [row] = await executor.select().from(subscriptions).where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.id, input.subscription)));
    if (!row) throw notFound("subscription", input.subscription);
    if (row.customerId !== customer.id) {
      throw validationFailed([{ field: "subscription", message: `Subscription '${row.id}' belongs to another customer than '${customer.id}'.` }]);
    }
    return row;
  }
  const live = await executor
    .select()
    .from(subscriptions)
    .where(and(eq(subscriptions.accountId, accountId), eq(subscriptions.customerId, customer.id), ne(subscriptions.status, "cancelled")))
    .limit(11);
  if (live.length === 1) return live[0]!;
  // This service has no pending invoice items: without a subscription there is nothing that will be invoiced.
  const message =
    live.length === 0
      ? `Customer '${customer.id}' has no subscription that is not cancelled: nothing is upcoming (a draft invoice is its own preview: GET /invoices/{id}).`
      : `Customer '${customer.id}' has ${live.length > 10 ? "more than 10" : live.length} subscriptions that are not cancelled: name one.`;
  throw validationFailed([{ field: "subscription", message }], message);
}

/** A refused step names the body field: `changes.steps.N.field`. */
function inChanges(error: unknown): unknown {
  if (!(error instanceof ServiceError) || error.category !== "validation") return error;
  const errors = ((error.extras.errors as FieldError[] | undefined) ?? []).map((e) => ({ ...e, field: `changes.${e.field}` }));
  return validationFailed(errors);
}

export async function previewUpcomingInvoice({ ctx, input }: Verb<Input>): Promise<InvoicePreviewResult> {
  if (input.proration_date !== undefined && input.changes === undefined) {
    throw validationFailed([{ field: "proration_date", message: "Only with changes: it is the instant the change is prorated at." }]);
  }
  const db = await getDb();
  // Inside an idempotent request's transaction this is a savepoint of it (no access mode of its own).
  return db.transaction(
    async (tx) => {
      const subscription = await subscriptionToPreview(tx, ctx.accountId, input);
      const current = { subscription, items: await itemsOf(tx, subscription.id) };
      if (!input.changes) return { ...(await upcomingInvoices(tx, ctx, current, {})), prorationDate: null };
      const prorationDate = input.proration_date ? new Date(input.proration_date) : ctx.now();
      const { currentPeriodStart: start, currentPeriodEnd: end } = subscription;
      if (prorationDate.getTime() < start.getTime() || prorationDate.getTime() > end.getTime()) {
        throw validationFailed([{ field: "proration_date", message: `Must be within the current period, ${start.toISOString()} to ${end.toISOString()}.` }]);
      }
      const { steps, effective, proration_behavior: prorationBehavior } = input.changes;
      try {
        await refuseMeteredQuantities(tx, ctx.accountId, steps);
        const change = { steps: steps.map(storedStep), effective, prorationBehavior, prorationDate };
        return { ...(await upcomingInvoices(tx, ctx, current, { change })), prorationDate };
      } catch (error) {
        throw inChanges(error);
      }
    },
    { accessMode: "read only", isolationLevel: "repeatable read" },
  );
}

function serializePreviewed(preview: InvoicePreview & { period: { start: Date; end: Date } }, livemode: boolean) {
  const invoice = serializeInvoice(preview, livemode);
  return {
    ...invoice,
    id: null,
    status: "draft" as const,
    lines: invoice.lines.map((line, index) => ({ ...line, id: null, proration: preview.prorations[index] ?? false })),
    period_start: preview.period.start.toISOString(),
    period_end: preview.period.end.toISOString(),
    starting_balance_atom: preview.invoice.startingBalanceAtom ?? 0,
    ending_balance_atom: preview.invoice.endingBalanceAtom ?? 0,
  };
}

export function serializeInvoicePreview(result: InvoicePreviewResult, livemode: boolean): InvoicePreviewObject {
  return {
    ...serializePreviewed(result.renewal, livemode),
    proration_date: result.prorationDate?.toISOString() ?? null,
    proration_credit_atom: result.prorationCreditAtom,
    proration_invoice: result.proration ? serializePreviewed(result.proration, livemode) : null,
  };
}
