import { handle } from "@/lib/api/handler";
import { checkReadiness } from "@/lib/health";
import { openApiDocument } from "@/lib/server/openapi";
import { getHealthOperation, getOpenApiOperation, getReadinessOperation } from "./operations";

// The document is fixed for the life of the process.
let cached: Record<string, unknown> | undefined;

/** The handlers of the meta operations (lib/server/routes.ts lists every domain's). */
export const metaHandlers = [
  handle(getHealthOperation, async () => ({ status: "ok" as const })),
  handle(getReadinessOperation, async () => checkReadiness()),
  handle(getOpenApiOperation, async () => (cached ??= { ...openApiDocument() })),
];
