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
}

export function jobs(): JobProvider {
  return config().inngestConfigured ? inngestJobs : embeddedJobs;
}
