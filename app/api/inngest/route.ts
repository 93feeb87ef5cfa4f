import { serve } from "inngest/next";
import type { NextRequest } from "next/server";
import { inngest } from "@/inngest/client";
import { functions } from "@/inngest/functions";
import { failWith, routeHandlers, type RouteHandler } from "@/lib/api/handler";
import { config } from "@/lib/config";
import { ServiceError } from "@/lib/errors";

/**
 * The endpoint Inngest calls to register and run the functions. Without Inngest configured this
 * process delivers webhooks itself, and the path answers 404 like any unknown path.
 */
const notConfigured = failWith(() => new ServiceError("not_found", "Inngest is not configured on this deployment (see docs/webhooks.md, Delivery drivers)."));

// Built on first use and configuration read per request: `next build` imports this module
// without the runtime environment, and an unconfigured deployment never builds the handler.
let served: ReturnType<typeof serve> | undefined;

function whenConfigured(method: "GET" | "POST" | "PUT"): RouteHandler {
  return async (request, context) => {
    if (!config().inngestConfigured) return notConfigured(request, context);
    served ??= serve({ client: inngest, functions });
    // Next.js passes a NextRequest; routeHandlers() only types it as the Request it extends.
    return served[method](request as NextRequest, context);
  };
}

export const { GET, POST, PUT, PATCH, DELETE, OPTIONS } = routeHandlers({
  GET: whenConfigured("GET"),
  POST: whenConfigured("POST"),
  PUT: whenConfigured("PUT"),
});
