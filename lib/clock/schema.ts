import { z } from "zod";
import { DateTime } from "@/lib/schemas";

export const TestClockAdvanceInput = z
  .strictObject({
    to: DateTime.meta({ description: "The instant to move the account's time to: after its current time, at most 5 years ahead." }),
  })
  .meta({ id: "TestClockAdvanceInput" });

export const TestClock = z
  .object({
    object: z.literal("test_clock"),
    account: z.string(),
    now: DateTime.meta({ description: "The account's current time." }),
    offset_ms: z.number().int().meta({ description: "How far the account's time runs ahead of real time." }),
    transitions_run: z.number().int().meta({
      description:
        "Time-driven transitions this advance ran: each one due at or before `to` (an announcement, a renewal, a retry, an expiry counts one). One due after `to`, even by a millisecond (a period that ends just after it, a metered renewal waiting for its usage grace), is not run by the advance and not counted: it runs when the account's time reaches it, in real time from then on, and `next_due` says when. 0 on retrieve.",
    }),
    next_due: DateTime.nullable().meta({ description: "When the next time-driven transition falls due, if any." }),
  })
  .meta({ id: "TestClock" });

export type TestClockObject = z.input<typeof TestClock>;
