"use client";

import Link from "next/link";
import { SubscriptionTitle, taxRateLabel } from "@/components/objects/names";
import { num, priceName, str, type ApiObject } from "@/components/objects/labels";
import { eventsHref } from "./format";

/** What an event names its entity by: the aggregate's type, id and the snapshot the event carries. */
type EntityEvent = { aggregate_type: string; aggregate_id: string; data: unknown };

/**
 * The entity of an event by the merchant's name for it, read from the snapshot the event carries
 * (no extra read, so a deleted object still has its name): a tax rate's display name and
 * percentage, a person's name and email, a price's nickname and amount, an invoice's number, else
 * a display name, name or description. Null when the snapshot names nothing.
 */
export function entityName(event: Pick<EntityEvent, "aggregate_type" | "data">): string | null {
  if (!event.data || typeof event.data !== "object") return null;
  const data = event.data as ApiObject;
  switch (event.aggregate_type) {
    case "tax_rate": {
      const name = str(data, "display_name");
      const percentage = num(data, "percentage");
      return name !== undefined && percentage !== undefined ? taxRateLabel({ display_name: name, percentage }) : null;
    }
    case "user":
    case "member":
    case "customer": {
      const name = str(data, "name");
      const email = str(data, "email");
      if (name && email && event.aggregate_type !== "customer") return `${name} <${email}>`;
      return name || email || null;
    }
    case "price":
      return typeof data.unit_amount_atom === "number" || data.billing_scheme === "tiered" ? priceName(data) : null;
    case "invoice": {
      const number = str(data, "number");
      return number ? `Invoice ${number}` : data.status === "draft" ? "Draft invoice" : null;
    }
    case "credit_note": {
      const number = str(data, "number");
      return number ? `Credit note ${number}` : null;
    }
  }
  return str(data, "display_name") || str(data, "name") || str(data, "description") || null;
}

/** A subscription's snapshot, when it has the customer and items its title is made of. */
function subscriptionOf(event: EntityEvent): { id: string; customer: string; items: { price: string }[] } | null {
  if (event.aggregate_type !== "subscription" || !event.data || typeof event.data !== "object") return null;
  const data = event.data as ApiObject;
  const items = Array.isArray(data.items) ? (data.items as unknown[]) : [];
  const prices = items.map((item) => (item && typeof item === "object" ? (item as ApiObject).price : undefined));
  const customer = str(data, "customer");
  if (!customer || !prices.every((price): price is string => typeof price === "string")) return null;
  return { id: event.aggregate_id, customer, items: prices.map((price) => ({ price })) };
}

/** The heading of one entity's timeline: its name when an event of it is at hand, else its id. */
export function timelineTitle(aggregateId: string, events: readonly EntityEvent[]): string {
  const event = events.find((item) => item.aggregate_id === aggregateId);
  return `Timeline of ${(event && entityName(event)) ?? aggregateId}`;
}

/**
 * The link to an entity's whole timeline, labelled by its name (a subscription by its customer and
 * product); the id is on hover (and in the timeline's "Aggregate id" filter once followed).
 */
export function EntityTimelineLink({ accountId, event, className = "" }: { accountId: string; event: EntityEvent; className?: string }) {
  const subscription = subscriptionOf(event);
  const name = subscription ? null : entityName(event);
  return (
    <Link
      href={eventsHref(accountId, { aggregate_id: event.aggregate_id })}
      className={`text-indigo-700 underline hover:text-indigo-900 ${name || subscription ? "" : "font-mono text-xs"} ${className}`}
      title={`${event.aggregate_id}: show this entity's whole timeline`}
      data-testid="event-entity"
    >
      {subscription ? <SubscriptionTitle accountId={accountId} subscription={subscription} /> : (name ?? event.aggregate_id)}
    </Link>
  );
}
