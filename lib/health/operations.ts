import { z } from "zod";
import { defineOperation } from "@/lib/api/operation";

export const Health = z.object({ status: z.literal("ok") }).meta({ id: "Health" });

export const getHealthOperation = defineOperation({
  operationId: "getHealth",
  method: "GET",
  path: "/health",
  summary: "Liveness",
  description:
    "Answers `{\"status\":\"ok\"}` while the process serves requests. No token, no database: a liveness probe must not fail (and restart the server) because a dependency is slow.",
  tag: "Health",
  access: "public",
  probe: true,
  response: { status: 200, description: "The process is alive.", schema: Health },
});

export const getReadinessOperation = defineOperation({
  operationId: "getReadiness",
  method: "GET",
  path: "/health/ready",
  summary: "Readiness: whether this instance can serve requests (its database answers)",
  description: "Not ready answers 503 with `Retry-After` (the answer to an unreachable database).",
  tag: "Health",
  access: "public",
  probe: true,
  response: { status: 200, description: "Ready.", schema: z.object({ status: z.literal("ready"), database: z.literal("ok") }) },
  errors: [503],
});

export const getOpenApiOperation = defineOperation({
  operationId: "getOpenApiDocument",
  method: "GET",
  path: "/openapi.json",
  summary: "The OpenAPI 3.1 document of this API",
  tag: "Meta",
  access: "public",
  response: { status: 200, description: "OpenAPI 3.1 document.", schema: z.record(z.string(), z.unknown()) },
});

/** The process's own operations: liveness, readiness, and this API's description. */
export const metaOperations = [getHealthOperation, getReadinessOperation, getOpenApiOperation];
