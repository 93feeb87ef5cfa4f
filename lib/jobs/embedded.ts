import type { JobProvider } from "./index";
import { applyProcessorEventsAfterResponse } from "./serverless";
import { jobWork } from "./work";

export const embeddedJobs: JobProvider = {
  name: "embedded",
  async deliveriesCreated() {
    // The drivers read due rows themselves; waking this one and announcing the commit to the
    // other instances (NOTIFY) only saves the wait for their next poll.
    jobWork()?.announceDeliveries();
  },
  async processorEventsReceived(accountId) {
    await applyProcessorEventsAfterResponse(accountId);
  },
  async transitionScheduled(_accountId, at) {
    // The ticker finds future transitions itself on its tick; something due already (a trial
    // shorter than the trial_will_end notice) need not wait for the next tick.
    if (at.getTime() <= Date.now()) jobWork()?.wakeClock();
  },
  async emailsQueued() {
    // The driver polls for due rows itself (instances with BACKGROUND_WORK=off find them there).
    jobWork()?.wakeEmails();
  },
};
