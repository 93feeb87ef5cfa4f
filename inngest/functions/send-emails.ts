import { inngest } from "@/inngest/client";
import { sendDueEmails } from "@/lib/emails/send";

/**
 * Sends the due emails (lib/emails/send.ts): when a commit queued some, and every minute for the
 * retries and whatever a lost event or a dead run left. Claims fence every row, so an overlapping
 * run would only find nothing to do; one at a time spares the connections.
 */
export const sendEmails = inngest.createFunction(
  {
    id: "send-emails",
    triggers: [{ event: "billing/emails.queued" }, { cron: "* * * * *" }],
    retries: 0,
    concurrency: { limit: 1 },
    checkpointing: false,
  },
  async ({ step }) => step.run("send-due-emails", () => sendDueEmails()),
);
