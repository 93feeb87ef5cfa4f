import { config } from "@/lib/config";
import { embeddedJobs } from "./embedded";
import { inngestJobs } from "./inngest";
import { serverlessJobs } from "./serverless";

/**
 * Background work behind one small interface (documenso style). The embedded provider runs it in
 * this process; the Inngest provider hands it to Inngest functions; the serverless provider (on
 * Vercel without Inngest) runs first attempts after the response and leaves the rest to cron. Delivery rows in the database
 * stay the single source of truth either way, so a lost hand-off only delays work.
 */
export interface JobProvider {
  readonly name: "embedded" | "inngest" | "serverless";
  /** Deliveries were committed and are due now. */
  deliveriesCreated(deliveryIds: string[]): Promise<void>;
  /**
   * Something in the account falls due at `at` (real time): a time-driven transition (lib/clock).
   * Callers go through lib/clock/schedule.ts, which converts the account's time to real time.
   */
  transitionScheduled(accountId: string, at: Date): Promise<void>;
  /** Emails were queued and are due now (lib/email-outbox/enqueue.ts). */
  emailsQueued(): Promise<void>;
  /**
   * A payment processor's webhook events were stored for the account (lib/payment-processor/events.ts):
   * apply them after the response, each re-reading its object at the processor.
   */
  processorEventsReceived(accountId: string): Promise<void>;
}

export function jobs(): JobProvider {
  if (config().inngestConfigured) return inngestJobs;
  return config().serverless ? serverlessJobs : embeddedJobs;
}
