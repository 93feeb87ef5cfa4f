import { clockTicker } from "@/lib/clock/ticker";
import { deliveryDriver } from "@/lib/webhooks/driver";
import type { JobProvider } from "./index";

export const embeddedJobs: JobProvider = {
  name: "embedded",
  async deliveriesCreated() {
    // The driver reads due rows itself; waking it only saves the wait for its next poll.
    deliveryDriver().wake();
  },
  async transitionScheduled(_accountId, at) {
    // The ticker finds future transitions itself on its tick; something due already (a trial
    // shorter than the trial_will_end notice) need not wait for the next tick.
    if (at.getTime() <= Date.now()) clockTicker().wake();
  },
};
