import { z } from "zod";
import { CustomerUpdateInput } from "@/lib/customers/schema";
import { updateCustomer } from "@/lib/customers/service";
import { settleSetup, startSetup, type SetupOutcome, type SetupStart } from "@/lib/payment-methods/setup";
import { notFound, ServiceError, validationFailed, type FieldError } from "@/lib/errors";
import { applyChangeRequest } from "@/lib/subscription-changes/apply";
import type { ChangeStepInputValue } from "@/lib/subscription-changes/schema";
import type { ChangeRequestRow } from "@/lib/subscription-changes/serialize";
import { cancelChangeRequest, createChangeRequest, getChangeRequest } from "@/lib/subscription-changes/service";
import { cancelSubscription, pauseSubscription, resumeSubscription, updateSubscription } from "@/lib/subscriptions/service";
import { CANCELLATION_REASONS, type PortalSettings } from "./schema";
import type { PortalSession } from "./sessions";
import { ownSubscription, portalSettings } from "./view";

/*
 * What a customer may change in the portal. Each verb checks, server-side, that the configuration
 * enables it and that the object is the session's customer's, then calls the API's own verb with
 * the session's context (actor `customer`, `metadata.portal_session` on every event).
 */

type Feature = "customer_update" | "payment_method_update" | "subscription_cancel" | "subscription_pause" | "subscription_update";

/** A feature the configuration turned off is refused as if the page did not exist. */
async function requireFeature(session: PortalSession, feature: Feature): Promise<PortalSettings> {
  const settings = await portalSettings(session);
  if (!settings.features[feature].enabled) throw new ServiceError("not_found", "This page is not available.");
  return settings;
}

/** The subscription's metadata key the portal records a cancellation's reason under. */
export const CANCELLATION_REASON_KEY = "cancellation_reason";

/**
 * Cancels in the configuration's mode: at the period end (`cancel_at_period_end`, one
 * `customer.subscription.updated` carrying the reason) or now (the reason first, then the cancel).
 */
export async function portalCancel(session: PortalSession, input: { subscription: string; reason?: string }) {
  const settings = await requireFeature(session, "subscription_cancel");
  await ownSubscription(session, input.subscription);
  const reasons = settings.features.subscription_cancel.cancellation_reasons;
  let metadata: Record<string, string> | undefined;
  if (reasons.enabled && input.reason) {
    const known = (CANCELLATION_REASONS as readonly string[]).includes(input.reason) && reasons.options.includes(input.reason as (typeof CANCELLATION_REASONS)[number]);
    if (!known) throw validationFailed([{ field: "reason", message: "Not one of the offered reasons." }]);
    metadata = { [CANCELLATION_REASON_KEY]: input.reason };
  }
  if (settings.features.subscription_cancel.mode === "at_period_end") {
    return updateSubscription({ ctx: session.ctx, input: { id: input.subscription, changes: { cancel_at_period_end: true, metadata } } });
  }
  if (metadata) await updateSubscription({ ctx: session.ctx, input: { id: input.subscription, changes: { metadata } } });
  return cancelSubscription({ ctx: session.ctx, input: { id: input.subscription, options: { at_period_end: false } } });
}

/** Undoes a pending cancel at the period end (and forgets its reason). */
export async function portalUndoCancel(session: PortalSession, input: { subscription: string }) {
  await requireFeature(session, "subscription_cancel");
  await ownSubscription(session, input.subscription);
  return updateSubscription({
    ctx: session.ctx,
    input: { id: input.subscription, changes: { cancel_at_period_end: false, metadata: { [CANCELLATION_REASON_KEY]: null } } },
  });
}

export async function portalPause(session: PortalSession, input: { subscription: string }) {
  await requireFeature(session, "subscription_pause");
  await ownSubscription(session, input.subscription);
  return pauseSubscription({ ctx: session.ctx, input: { id: input.subscription } });
}

export async function portalResume(session: PortalSession, input: { subscription: string }) {
  await requireFeature(session, "subscription_pause");
  await ownSubscription(session, input.subscription);
  return resumeSubscription({ ctx: session.ctx, input: { id: input.subscription } });
}

/**
 * A plan or quantity switch, previewed: a change request (the API's own, with its proration) made
 * for this session. The page shows its amounts; confirming applies that very request.
 */
export async function portalPreviewSwitch(session: PortalSession, input: { subscription: string; price: string; quantity?: number }): Promise<ChangeRequestRow> {
  const settings = await requireFeature(session, "subscription_update");
  const update = settings.features.subscription_update;
  const current = await ownSubscription(session, input.subscription);
  const [item, ...others] = current.items;
  if (!item || others.length > 0) throw new ServiceError("conflict", "A subscription of several items is changed by the merchant, not in the portal.");
  const errors: FieldError[] = [];
  if (input.price !== item.priceId && !update.prices.includes(input.price)) errors.push({ field: "price", message: "Not one of the offered plans." });
  const quantity = input.quantity ?? item.quantity;
  if (quantity !== item.quantity) {
    if (!update.quantity.enabled) errors.push({ field: "quantity", message: "The quantity cannot be changed here." });
    else if (!Number.isInteger(quantity) || quantity < update.quantity.minimum || quantity > update.quantity.maximum) {
      errors.push({ field: "quantity", message: `Between ${update.quantity.minimum} and ${update.quantity.maximum}.` });
    }
  }
  if (errors.length > 0) throw validationFailed(errors, errors[0]!.message);
  const steps: ChangeStepInputValue[] = [];
  if (input.price !== item.priceId) steps.push({ type: "switch_price", item: item.id, price: input.price });
  if (quantity !== item.quantity) steps.push({ type: "set_quantity", item: item.id, quantity });
  if (steps.length === 0) throw validationFailed([{ field: "price", message: "That is the current plan and quantity." }]);
  // The configuration's plan-change rule, decided by the API's own verb (the same preview, the same test of an upgrade).
  const policy = update.plan_change === "account_policy" ? undefined : update.plan_change;
  return createChangeRequest({
    ctx: session.ctx,
    input: { subscriptionId: current.subscription.id, steps, policy, metadata: { source: "portal", portal_session: session.id } },
  });
}

/** A change request this session previewed (another one, even of the same subscription, is not found). */
export async function portalChangeRequest(session: PortalSession, input: { subscription: string; id: string }): Promise<ChangeRequestRow> {
  await requireFeature(session, "subscription_update");
  await ownSubscription(session, input.subscription);
  const request = await getChangeRequest({ ctx: session.ctx, input: { subscriptionId: input.subscription, id: input.id } });
  if (request.metadata.portal_session !== session.id) throw notFound("subscription change request", input.id);
  return request;
}

export async function portalConfirmSwitch(session: PortalSession, input: { subscription: string; id: string }): Promise<ChangeRequestRow> {
  const request = await portalChangeRequest(session, input);
  return applyChangeRequest({ ctx: session.ctx, input: { subscriptionId: request.subscriptionId, id: request.id } });
}

export async function portalDiscardSwitch(session: PortalSession, input: { subscription: string; id: string }): Promise<ChangeRequestRow> {
  const request = await portalChangeRequest(session, input);
  return cancelChangeRequest({ ctx: session.ctx, input: { subscriptionId: request.subscriptionId, id: request.id } });
}

/**
 * Cancels a change scheduled for the period end (the customer keeps the current plan), through the
 * API's cancel. Only one the portal scheduled (in any of this customer's sessions): a change the
 * merchant scheduled is the merchant's to drop.
 */
export async function portalCancelPendingChange(session: PortalSession, input: { subscription: string; id: string }): Promise<ChangeRequestRow> {
  await requireFeature(session, "subscription_update");
  const current = await ownSubscription(session, input.subscription);
  if (!current.subscription.pendingChanges.some((change) => change.change_request === input.id)) throw notFound("pending change", input.id);
  const request = await getChangeRequest({ ctx: session.ctx, input: { subscriptionId: input.subscription, id: input.id } });
  if (request.metadata.source !== "portal") throw new ServiceError("conflict", "This change was scheduled by the merchant; contact them to change it.");
  return cancelChangeRequest({ ctx: session.ctx, input: { subscriptionId: request.subscriptionId, id: request.id } });
}

/** The billing details a customer may change: the API's own schema for them, so the same checks and messages. */
export const PortalDetailsInput = CustomerUpdateInput.pick({ name: true, email: true, address: true, tax_ids: true });

export async function portalUpdateDetails(session: PortalSession, input: unknown) {
  await requireFeature(session, "customer_update");
  const parsed = PortalDetailsInput.safeParse(input);
  if (!parsed.success) {
    const errors = parsed.error.issues.map((issue) => ({ field: issue.path.map(String).join(".") || "(body)", message: issue.message }));
    throw validationFailed(errors);
  }
  return updateCustomer({ ctx: session.ctx, input: { id: session.customerId, changes: parsed.data } });
}

/** The method itself is checked by `updateSubscription` (sandbox methods on sandbox accounts, as the API). */
const PaymentMethodInput = z.strictObject({ subscription: z.string().min(1), payment_method: z.string().min(1) });

/** A subscription's default payment method (sandbox methods, on sandbox accounts), as `POST /subscriptions/{id}` sets it. */
export async function portalSetPaymentMethod(session: PortalSession, input: unknown) {
  await requireFeature(session, "payment_method_update");
  const parsed = PaymentMethodInput.safeParse(input);
  if (!parsed.success) throw validationFailed([{ field: "payment_method", message: parsed.error.issues[0]?.message ?? "Invalid." }]);
  await ownSubscription(session, parsed.data.subscription);
  return updateSubscription({ ctx: session.ctx, input: { id: parsed.data.subscription, changes: { default_payment_method: parsed.data.payment_method } } });
}

/**
 * "Update payment method" on an account whose processor saves cards in the browser (Stripe): a
 * setup for the session's customer, whose client secret the page's Stripe.js confirms
 * (lib/payment-methods/setup.ts). Nothing is recorded here.
 */
export async function portalStartSetup(session: PortalSession): Promise<SetupStart> {
  await requireFeature(session, "payment_method_update");
  return startSetup(session.ctx, session.customerId);
}

/**
 * The return URL (`?setup_intent=seti_…`): the setup re-read at the processor and recorded once
 * (the saved card becomes the default of the customer's live subscriptions), whatever the browser
 * says. Another customer's setup, or one not made here, changes nothing.
 */
export async function portalSettleSetup(session: PortalSession, reference: string): Promise<SetupOutcome> {
  await requireFeature(session, "payment_method_update");
  return settleSetup(session.ctx, { reference, customerId: session.customerId });
}
