import { handle, routeHandlers } from "@/lib/api/handler";
import { defineOperation } from "@/lib/api/operation";
import { openApiDocument } from "@/lib/openapi";
import { z } from "zod";

const getOpenApiOperation = defineOperation({
  operationId: "getOpenApiDocument",
  method: "GET",
  path: "/openapi.json",
  summary: "The OpenAPI 3.1 document of this API",
  tag: "Meta",
  access: "public",
  response: { status: 200, description: "OpenAPI 3.1 document.", schema: z.record(z.string(), z.unknown()) },
});

// The document is fixed for the life of the process.
let cached: Record<string, unknown> | undefined;

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: handle(getOpenApiOperation, async () => (cached ??= { ...openApiDocument() })),
});
