import { handle, routeHandlers } from "@/lib/api/handler";
import { getHealthOperation } from "@/lib/health/operations";

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getHealthOperation, async () => ({ status: "ok" as const })),
});
