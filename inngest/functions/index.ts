import { clockTick } from "./clock-tick";
import { deliverWebhook } from "./deliver-webhook";
import { runDueTransitions } from "./run-due-transitions";
import { sendEmails } from "./send-emails";
import { sweepDeliveries } from "./sweep-deliveries";

/** Every function the serve route registers with Inngest. */
export const functions = [deliverWebhook, sweepDeliveries, clockTick, runDueTransitions, sendEmails];
