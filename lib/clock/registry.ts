import { checkoutSessionExpiry } from "@/lib/checkout/expiry";
import type { TimeTransition } from "./transitions";

/**
 * Every kind of time-driven transition, in the order they run when several fall due at the same
 * instant (announcements before the change they announce).
 */
export const TIME_TRANSITIONS: readonly TimeTransition[] = [checkoutSessionExpiry];
