import { deliveryDriver } from "@/lib/webhooks/driver";
import type { JobProvider } from "./index";

export const embeddedJobs: JobProvider = {
  name: "embedded",
  async deliveriesCreated() {
    // The driver reads due rows itself; waking it only saves the wait for its next poll.
    deliveryDriver().wake();
  },
};
