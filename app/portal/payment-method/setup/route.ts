import type { NextRequest } from "next/server";
import { ServiceError } from "@/lib/errors";
import { portalStartSetup } from "@/lib/portal/changes";
import { portalSessionOf, PORTAL_COOKIE, sameHost } from "@/lib/portal/sessions";

const json = (status: number, body: unknown) => Response.json(body, { status, headers: { "Cache-Control": "no-store" } });

/**
 * The portal's "Save card" on an account connected to Stripe (docs/payments.md, "Saving a card with
 * a SetupIntent"): a SetupIntent made for the session's customer; its client secret answers, for
 * the page's Stripe.js to confirm (`confirmSetup`). Nothing is recorded here.
 */
export async function POST(request: NextRequest) {
  if (!sameHost(request)) return json(403, { message: "Cross-site request refused." });
  const session = await portalSessionOf(request.cookies.get(PORTAL_COOKIE)?.value, request.headers.get("x-correlation-id"));
  if (!session) return json(401, { message: "Your session has ended; open the portal again." });
  try {
    const started = await portalStartSetup(session);
    return json(200, { client_secret: started.clientSecret });
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    return json(error.category === "not_found" ? 404 : error.category === "unavailable" ? 503 : 409, { message: error.message });
  }
}
