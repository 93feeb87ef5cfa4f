import { handle, routeHandlers } from "@/lib/api/handler";
import { getTestClockOperation } from "@/lib/clock/operations";
import { getClock, serializeClock } from "@/lib/clock/service";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getTestClockOperation, async ({ ctx }) => serializeClock(await getClock({ ctx, input: {} }))),
});
