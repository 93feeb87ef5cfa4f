import { MANIFEST_EVENT_DESCRIPTIONS, MANIFEST_EVENT_GROUPS } from "@/lib/manifests.generated";

/**
 * The event catalogue of the spec: the one list of event types, each with the aggregate (entity
 * type) its events belong to. Validation, OpenAPI enums and the dashboard's picker all read it.
 */
export const EVENT_CATALOGUE = [
  { group: "Payment", aggregateType: "payment", types: ["payment.succeeded", "payment.failed", "payment.refunded"] },
  {
    group: "Checkout session",
    aggregateType: "checkout_session",
    types: [
      "checkout.session.created",
      "checkout.session.updated",
      "checkout.session.deleted",
      "checkout.session.completed",
      "checkout.session.expired",
    ],
  },
  {
    group: "Payment intent",
    aggregateType: "payment_intent",
    types: [
      "payment_intent.created",
      "payment_intent.processing",
      "payment_intent.requires_action",
      "payment_intent.amount_capturable_updated",
      "payment_intent.succeeded",
      "payment_intent.canceled",
      "payment_intent.payment_failed",
      "payment_intent.partially_funded",
    ],
  },
  {
    group: "Subscription",
    aggregateType: "subscription",
    types: [
      "customer.subscription.created",
      "customer.subscription.updated",
      "customer.subscription.paused",
      "customer.subscription.resumed",
      "customer.subscription.cancelled",
      "customer.subscription.trial_will_end",
    ],
  },
  {
    group: "Invoice",
    aggregateType: "invoice",
    types: [
      "invoice.created",
      "invoice.finalized",
      "invoice.paid",
      "invoice.payment_succeeded",
      "invoice.payment_failed",
      "invoice.payment_action_required",
      "invoice.overdue",
      "invoice.voided",
      "invoice.marked_uncollectible",
      "invoice.refunded",
      "invoice.upcoming",
    ],
  },
  { group: "Customer", aggregateType: "customer", types: ["customer.created", "customer.updated", "customer.deleted"] },
  {
    group: "Customer discount",
    aggregateType: "customer_discount",
    types: ["customer.discount.created", "customer.discount.updated", "customer.discount.deleted"],
  },
  { group: "Coupon", aggregateType: "coupon", types: ["coupon.created", "coupon.updated", "coupon.deleted"] },
  { group: "Price", aggregateType: "price", types: ["price.created", "price.updated", "price.deleted"] },
  { group: "Product", aggregateType: "product", types: ["product.created", "product.updated", "product.deleted"] },
  { group: "Refund", aggregateType: "refund", types: ["refund.created", "refund.updated", "refund.failed"] },
  // Our own groups, beyond the spec's 11 (SPEC_EVENT_TYPES below).
  // The audit trail of access (docs/request-logs.md, "Audit events").
  { group: "API token", aggregateType: "api_token", types: ["api_token.created", "api_token.revoked"] },
  {
    group: "Webhook endpoint",
    aggregateType: "webhook_endpoint",
    types: [
      "webhook_endpoint.created",
      "webhook_endpoint.updated",
      "webhook_endpoint.deleted",
      "webhook_endpoint.disabled",
      "webhook_endpoint.enabled",
      "webhook_endpoint.secret_rotated",
    ],
  },
  {
    group: "User",
    aggregateType: "user",
    types: ["user.signed_in", "user.sign_in_failed", "user.signed_out", "user.password_changed"],
  },
  // Invoices and tax (docs/invoices-and-tax.md).
  { group: "Account settings", aggregateType: "account_settings", types: ["account.settings_updated"] },
  { group: "Tax rate", aggregateType: "tax_rate", types: ["tax_rate.created", "tax_rate.updated"] },
  // Our own namespace (usage-based billing), beyond the spec's 51 types.
  {
    group: "Meter",
    aggregateType: "meter",
    types: ["meter.created", "meter.updated", "meter.deactivated", "meter.reactivated"],
  },
  { group: "Feature", aggregateType: "feature", types: ["feature.created"] },
  { group: "Product feature", aggregateType: "product_feature", types: ["product_feature.attached", "product_feature.detached"] },
  { group: "Customer entitlements", aggregateType: "customer_entitlements", types: ["customer.entitlements.updated"] },
  { group: "Portal configuration", aggregateType: "portal_configuration", types: ["portal_configuration.updated"] },
  // Credit notes and the customer balance (docs/credit-notes-and-balance.md).
  { group: "Credit note", aggregateType: "credit_note", types: ["credit_note.created", "credit_note.voided"] },
  {
    group: "Customer balance transaction",
    aggregateType: "customer_balance_transaction",
    types: ["customer.balance_transaction.created"],
  },
  // Membership audit (docs/teams.md, "Audit events"): our own namespace.
  {
    group: "Member",
    aggregateType: "member",
    types: ["member.invited", "member.invitation_revoked", "member.joined", "member.role_changed", "member.removed"],
  },
  // Payment processor connections (docs/payments.md): our own namespace, an audit of who connected what.
  { group: "Payment processor", aggregateType: "payment_processor", types: ["payment_processor.connected", "payment_processor.disconnected"] },
  // Changes at the period end (docs/billing.md): the life of a scheduled change request.
  {
    group: "Subscription change request",
    aggregateType: "subscription_change_request",
    types: ["subscription_change_request.scheduled", "subscription_change_request.applied", "subscription_change_request.canceled"],
  },
  // Then the groups of the domain folders' manifests (lib/<domain>/manifest.ts), in API_OPERATIONS' order.
  ...MANIFEST_EVENT_GROUPS,
] as const;

type Catalogue = typeof EVENT_CATALOGUE;
export type EventType = Catalogue[number]["types"][number];
export type AggregateType = Catalogue[number]["aggregateType"];

/**
 * What each type means, for receivers (`GET /api/event-types`, the OpenAPI document's webhooks).
 * A type added above fails the typecheck until it is described here.
 */
export const EVENT_DESCRIPTIONS = {
  "payment.succeeded": "A payment succeeded: the payment intent's money was collected.",
  "payment.failed": "A payment attempt failed; `failure_message` says why.",
  "payment.refunded": "A payment was refunded in full or in part (`amount_refunded_atom` grew).",
  "checkout.session.created": "A checkout session was created and is open.",
  "checkout.session.updated": "An open checkout session was changed (for example its metadata).",
  "checkout.session.deleted": "An open checkout session was deleted; the object is its last state, with `deleted: true`.",
  "checkout.session.completed": "A customer completed a checkout session on the hosted page; its customer and payment are set.",
  "checkout.session.expired": "An open checkout session passed `expires_at` without being completed.",
  "payment_intent.created": "A payment intent was created.",
  "payment_intent.processing": "A payment intent's payment is being processed.",
  "payment_intent.requires_action": "A payment intent needs the customer to act (for example to authenticate) before it can succeed.",
  "payment_intent.amount_capturable_updated": "A manually captured payment intent was authorized: `amount_capturable_atom` can now be captured.",
  "payment_intent.succeeded": "A payment intent succeeded: the full amount was received.",
  "payment_intent.canceled": "A payment intent was canceled.",
  "payment_intent.payment_failed": "A payment attempt on a payment intent failed; `last_payment_error` says why and it needs a new payment method.",
  "payment_intent.partially_funded": "A payment intent received part of its amount (`amount_received_atom` below `amount_atom`).",
  "customer.subscription.created": "A subscription was created.",
  "customer.subscription.updated": "A subscription was changed: its items, metadata, period (renewal) or status.",
  "customer.subscription.paused": "A subscription was paused.",
  "customer.subscription.resumed": "A paused subscription was resumed and is active again.",
  "customer.subscription.cancelled": "A subscription was cancelled; `cancelled_at` says when.",
  "customer.subscription.trial_will_end": "A subscription's trial ends within three days (`trial_end`).",
  "invoice.created": "An invoice was created as a draft.",
  "invoice.finalized": "A draft invoice was finalized: its amounts are fixed and it can be paid.",
  "invoice.paid": "An invoice was paid in full (`due_amount_atom` is 0).",
  "invoice.payment_succeeded": "A payment of an invoice succeeded (sent with `invoice.paid`).",
  "invoice.payment_failed": "A payment attempt of an invoice failed; the invoice stays open.",
  "invoice.payment_action_required": "A payment of an invoice needs the customer to act (for example to authenticate).",
  "invoice.overdue": "An open invoice passed its `due_date` unpaid.",
  "invoice.voided": "An invoice was voided; it is no longer owed.",
  "invoice.marked_uncollectible": "An invoice was marked uncollectible.",
  "invoice.refunded": "A payment of a paid invoice was refunded.",
  "invoice.upcoming": "A subscription will renew soon: the object previews the renewal's invoice.",
  "customer.created": "A customer was created.",
  "customer.updated": "A customer's details were changed.",
  "customer.deleted": "A customer was deleted; the object is its last state, with `deleted: true`.",
  "customer.discount.created": "A coupon was applied to a customer (the customer's discount).",
  "customer.discount.updated": "A customer's discount was replaced by another coupon.",
  "customer.discount.deleted": "A customer's discount was removed; the object is its last state, with `deleted: true`.",
  "coupon.created": "A coupon was created.",
  "coupon.updated": "A coupon was changed (its name or metadata).",
  "coupon.deleted": "A coupon was deleted; the object is its last state, with `deleted: true`.",
  "price.created": "A price was created.",
  "price.updated": "A price was changed (its nickname, metadata or active flag, or a currency it bills in was added).",
  "price.deleted": "A price was deleted; the object is its last state, with `deleted: true`.",
  "product.created": "A product was created.",
  "product.updated": "A product was changed.",
  "product.deleted": "A product was deleted; the object is its last state, with `deleted: true`.",
  "refund.created": "A refund was created and is pending.",
  "refund.updated": "A refund's status changed (for example it succeeded).",
  "refund.failed": "A refund failed; `failure_reason` says why.",
  "api_token.created":
    "An API token was created (the object never holds the token itself). `metadata` has the creator's `client_address` and `user_agent`.",
  "api_token.revoked": "An API token was revoked; its next call is refused. `metadata` has the actor's `client_address` and `user_agent`.",
  "webhook_endpoint.created":
    "A webhook endpoint was created (the object never holds its signing secret). An endpoint never receives the `webhook_endpoint.*` events about itself.",
  "webhook_endpoint.updated": "A webhook endpoint's URL, events, description or rate was changed.",
  "webhook_endpoint.deleted": "A webhook endpoint was deleted; the object is its last state, with `deleted: true`.",
  "webhook_endpoint.disabled": "A webhook endpoint was disabled by hand: it receives nothing until enabled.",
  "webhook_endpoint.enabled": "A disabled webhook endpoint was enabled again.",
  "webhook_endpoint.secret_rotated":
    "A webhook endpoint's signing secret was replaced (the secrets are never in the event); `previous_secret_expires_at` says until when the old one still signs.",
  "user.signed_in":
    "A user of the account's organization signed in to the dashboard (emitted in each of the organization's accounts). `metadata` has the `client_address` and `user_agent`.",
  "user.sign_in_failed":
    "A sign-in with a known user's email failed (wrong password). Attempts with unknown emails name no account and emit nothing.",
  "user.signed_out": "A user signed out; every session of the user ended.",
  "user.password_changed": "A user changed their password (never in the event, nor its hash); every other session of the user ended.",
  "member.invited":
    "A member invited someone to the organization with a role (emitted in each of the organization's accounts). The object is the invitation (`inv_…`), never its link.",
  "member.invitation_revoked": "An open invitation was revoked; its link stopped working.",
  "member.joined": "Someone accepted an invitation and joined the organization with the invited role; the actor is the new member.",
  "member.role_changed": "A member's role was changed; `previous_data.role` is the role before.",
  "member.removed": "A member was removed from the organization; their sessions ended. The object is their last state, `status: removed`.",
  "payment_processor.connected":
    "A payment processor was connected to the account (or its keys replaced: `previous_data` is the former connection); secrets never appear, only `secret_key_last4`. The aggregate id is the account's.",
  "payment_processor.disconnected": "The account's payment processor was disconnected and its webhook endpoint there deleted; the object is the connection as it was.",
  "account.settings_updated": "The account settings (seller details, invoice prefix, default locale) were changed; the aggregate id is the account's.",
  "tax_rate.created": "A tax rate was created.",
  "tax_rate.updated": "A tax rate was changed or archived (`active` false).",
  "meter.created": "A meter was created: usage events of its `event_name` are now counted.",
  "meter.updated": "A meter's `display_name` was changed.",
  "meter.deactivated": "A meter was deactivated: it accepts no more usage events and frees its `event_name`.",
  "meter.reactivated": "An inactive meter was reactivated and counts usage events again.",
  "feature.created": "A feature (an entitlement's `lookup_key`) was created.",
  "product_feature.attached": "A feature was attached to a product: its subscribers are entitled to it.",
  "product_feature.detached": "A feature was detached from a product; the object is the link's last state.",
  "customer.entitlements.updated":
    "A customer's active entitlements changed (a subscription change, a product feature, or the end of a past_due grace); `previous_data` holds the list before.",
  "portal_configuration.updated": "The account's customer portal configuration changed (aggregate: the account).",
  "credit_note.created":
    "A credit note was issued: before payment it lowered the invoice's amount due; after payment its total was refunded, credited to the customer's balance or settled out of band.",
  "credit_note.voided": "A pre-payment credit note was voided: the invoice's amount due is back up by its total.",
  "customer.balance_transaction.created":
    "A customer's balance changed: a manual adjustment, a credit note's credit, a change request's proration credit (`type: proration`), or finalization applying it to an invoice (`ending_balance_atom` is the balance after).",
  "subscription_change_request.scheduled":
    "A change request with `effective: period_end` was applied: it is `scheduled` for the renewal at `effective_at` and listed in its subscription's `pending_changes`.",
  "subscription_change_request.applied":
    "The renewal applied a scheduled change request before invoicing the new period (each step's `customer.subscription.updated` precedes it).",
  "subscription_change_request.canceled":
    "A scheduled change request was canceled: `cancellation_reason` says whether by request, because its subscription was cancelled first, or because its steps no longer applied at the renewal.",
  ...MANIFEST_EVENT_DESCRIPTIONS,
} as const satisfies Record<EventType, string>;

export const EVENT_TYPES: readonly EventType[] = EVENT_CATALOGUE.flatMap((group) => group.types);

/** The spec's catalogue is the first 11 groups (its 51 types, names and shapes fixed); our own groups follow. */
const SPEC_GROUP_COUNT = 11;
export const SPEC_EVENT_TYPES: readonly EventType[] = EVENT_CATALOGUE.slice(0, SPEC_GROUP_COUNT).flatMap((group) => group.types);
export const OWN_EVENT_TYPES: readonly EventType[] = EVENT_CATALOGUE.slice(SPEC_GROUP_COUNT).flatMap((group) => group.types);
export const AGGREGATE_TYPES: readonly AggregateType[] = EVENT_CATALOGUE.map((group) => group.aggregateType);

const AGGREGATE_OF = new Map<string, AggregateType>(
  EVENT_CATALOGUE.flatMap((group) => group.types.map((type) => [type, group.aggregateType] as const)),
);

export function aggregateTypeOf(type: EventType): AggregateType {
  return AGGREGATE_OF.get(type)!;
}

export function isEventType(value: string): value is EventType {
  return AGGREGATE_OF.has(value);
}

/** The current schema version of the event format (the Event object's `version`). */
export const EVENT_FORMAT_VERSION = 1;
