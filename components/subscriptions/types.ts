// Type-only imports: the lib schemas are zod (server-safe but heavy); only their shapes are needed.
import type { z } from "zod";
import type { Subscription as SubscriptionSchema, SubscriptionStatus } from "@/lib/subscriptions/schema";

/** A subscription as sent over the wire. */
export type Subscription = z.output<typeof SubscriptionSchema>;
export type SubscriptionItem = Subscription["items"][number];
export type { SubscriptionStatus };
