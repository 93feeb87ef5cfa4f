import { notFound } from "@/lib/errors";
import {
  portalCancel,
  portalCancelPendingChange,
  portalConfirmSwitch,
  portalDiscardSwitch,
  portalPause,
  portalPreviewSwitch,
  portalResume,
  portalSetPaymentMethod,
  portalUndoCancel,
  portalUpdateDetails,
} from "./changes";
import type { PortalSession } from "./sessions";
import { portalDate } from "./view";

/* The portal's forms (POST /portal/act/{action}): form fields → one portal verb → the next page. */

export type PortalForm = Record<string, string>;

const field = (form: PortalForm, name: string) => form[name] ?? "";
const notice = (path: string, text: string) => `${path}?${new URLSearchParams({ notice: text })}`;

/** The billing-details form's fields as the API's customer update body (empty optional fields: none). */
function detailsBody(form: PortalForm) {
  const address = field(form, "address.line1").trim()
    ? {
        line1: field(form, "address.line1"),
        line2: field(form, "address.line2") || null,
        postal_code: field(form, "address.postal_code"),
        city: field(form, "address.city"),
        country: field(form, "address.country").toUpperCase(),
      }
    : null;
  const taxIds = Object.keys(form)
    .filter((name) => /^tax_id\.\d$/.test(name) && field(form, name).trim() !== "")
    .sort()
    .map((name) => ({ type: "eu_vat", value: field(form, name) }));
  return { name: field(form, "name").trim() || null, email: field(form, "email").trim(), address, tax_ids: taxIds };
}

const ACTIONS: Record<string, (session: PortalSession, form: PortalForm) => Promise<string>> = {
  cancel: async (session, form) => {
    const { subscription } = await portalCancel(session, { subscription: field(form, "subscription"), reason: field(form, "reason") || undefined });
    // One sentence per state (docs/portal-and-entitlements.md): a cancel at the period end has not ended it yet.
    return notice("/portal", subscription.cancelAtPeriodEnd ? `Your subscription ends on ${portalDate(subscription.currentPeriodEnd)}.` : "Your subscription is cancelled.");
  },
  "undo-cancel": async (session, form) => {
    await portalUndoCancel(session, { subscription: field(form, "subscription") });
    return notice("/portal", "Your subscription continues.");
  },
  pause: async (session, form) => {
    await portalPause(session, { subscription: field(form, "subscription") });
    return notice("/portal", "Your subscription is paused.");
  },
  resume: async (session, form) => {
    await portalResume(session, { subscription: field(form, "subscription") });
    return notice("/portal", "Your subscription is active again.");
  },
  "preview-switch": async (session, form) => {
    const subscription = field(form, "subscription");
    const quantity = form.quantity === undefined ? undefined : Number(form.quantity);
    const request = await portalPreviewSwitch(session, { subscription, price: field(form, "price"), quantity });
    return `/portal/subscriptions/${subscription}/change/${request.id}`;
  },
  "confirm-switch": async (session, form) => {
    const applied = await portalConfirmSwitch(session, { subscription: field(form, "subscription"), id: field(form, "request") });
    if (applied.status === "scheduled" && applied.effectiveAt) return notice("/portal", `Your plan changes on ${portalDate(applied.effectiveAt)}.`);
    return notice("/portal", "Your plan is changed.");
  },
  "cancel-pending-change": async (session, form) => {
    await portalCancelPendingChange(session, { subscription: field(form, "subscription"), id: field(form, "request") });
    return notice("/portal", "The scheduled change is cancelled; your plan stays as it is.");
  },
  "discard-switch": async (session, form) => {
    await portalDiscardSwitch(session, { subscription: field(form, "subscription"), id: field(form, "request") });
    return "/portal";
  },
  details: async (session, form) => {
    await portalUpdateDetails(session, detailsBody(form));
    return notice("/portal/details", "Your billing details are saved.");
  },
  "payment-method": async (session, form) => {
    await portalSetPaymentMethod(session, { subscription: field(form, "subscription"), payment_method: field(form, "payment_method") });
    return notice("/portal/payment-method", "Your payment method is saved.");
  },
};

/** Runs one form's action; an unknown action is not found. */
export async function portalRequestAction(session: PortalSession, action: string, form: PortalForm): Promise<string> {
  const run = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  if (!run) throw notFound("portal action", action);
  return run(session, form);
}
