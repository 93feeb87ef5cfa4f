import { z } from "zod";
import { handle, routeHandlers } from "@/lib/api/handler";
import { defineOperation } from "@/lib/api/operation";
import { checkReadiness } from "@/lib/health";

const readinessOperation = defineOperation({
  operationId: "getReadiness",
  method: "GET",
  path: "/health/ready",
  summary: "Readiness: whether this instance can serve requests (its database answers)",
  tag: "Meta",
  access: "public",
  response: { status: 200, description: "Ready.", schema: z.object({ status: z.literal("ready"), database: z.literal("ok") }) },
});

// Not ready answers 503 with Retry-After (the handler's answer to an unreachable database).
export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(readinessOperation, async () => checkReadiness()),
});
