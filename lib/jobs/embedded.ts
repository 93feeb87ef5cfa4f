import { clockTicker } from "@/lib/clock/ticker";
import { deliveryDriver } from "@/lib/webhooks/driver";
import type { JobProvider } from "./index";
import { applyProcessorEventsAfterResponse } from "./serverless";

export const embeddedJobs: JobProvider = {
  name: "embedded",
  async deliveriesCreated() {
    // The drivers read due rows themselves; waking this one and announcing the commit to the
    // other instances (NOTIFY) only saves the wait for their next poll.
    deliveryDriver().announce();
  },
  async processorEventsReceived(accountId) {
    await applyProcessorEventsAfterResponse(accountId);
  },
  async transitionScheduled(_accountId, at) {
    // The ticker finds future transitions itself on its tick; something due already (a trial
    // shorter than the trial_will_end notice) need not wait for the next tick.
    if (at.getTime() <= Date.now()) clockTicker().wake();
  },
};
