import { handle, routeHandlers } from "@/lib/api/handler";
import { advanceTestClockOperation } from "@/lib/clock/operations";
import { advanceClock, serializeClock } from "@/lib/clock/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  POST: handle(advanceTestClockOperation, async ({ ctx, body }) =>
    serializeClock(await advanceClock({ ctx, input: { to: new Date(body.to) } })),
  ),
});
