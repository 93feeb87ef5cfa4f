import { config } from "@/lib/config";
import { embeddedJobs } from "./embedded";
import { inngestJobs } from "./inngest";

/**
 * Background work behind one small interface (documenso style). The embedded provider runs it in
 * this process; the Inngest provider hands it to Inngest functions. Delivery rows in the database
 * stay the single source of truth either way, so a lost hand-off only delays work.
 */
export interface JobProvider {
  readonly name: "embedded" | "inngest";
  /** Deliveries were committed and are due now. */
  deliveriesCreated(deliveryIds: string[]): Promise<void>;
  /**
   * Something in the account falls due at `at` (real time): a time-driven transition (lib/clock).
   * Callers go through lib/clock/schedule.ts, which converts the account's time to real time.
   */
  transitionScheduled(accountId: string, at: Date): Promise<void>;
}

export function jobs(): JobProvider {
  return config().inngestConfigured ? inngestJobs : embeddedJobs;
}
