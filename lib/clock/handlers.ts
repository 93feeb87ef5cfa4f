import { handle } from "@/lib/api/handler";
import { advanceTestClockOperation, getTestClockOperation } from "./operations";
import { advanceClock, getClock, serializeClock } from "./service";

/** The handlers of this domain's operations (lib/server/routes.ts lists every domain's). */
export const testClockHandlers = [
  handle(getTestClockOperation, async ({ ctx }) => serializeClock(await getClock({ ctx, input: {} }))),
  handle(advanceTestClockOperation, async ({ ctx, body }) =>
    serializeClock(await advanceClock({ ctx, input: { to: new Date(body.to) } })),
  ),
];
