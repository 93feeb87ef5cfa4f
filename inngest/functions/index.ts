import { deliverWebhook } from "./deliver-webhook";
import { sweepDeliveries } from "./sweep-deliveries";

/** Every function the serve route registers with Inngest. */
export const functions = [deliverWebhook, sweepDeliveries];
