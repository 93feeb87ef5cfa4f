import { publicBaseUrl } from "@/lib/config";
import { openPortalLink, PORTAL_COOKIE } from "@/lib/portal/sessions";

const HEADERS = { "Cache-Control": "no-store", "Referrer-Policy": "no-referrer" };

/** Where a link's flow opens the portal. */
function landingOf(flow: { type: string; subscription: string | null } | null): string {
  if (flow?.type === "subscription_cancel" && flow.subscription) return `/portal/subscriptions/${flow.subscription}/cancel`;
  if (flow?.type === "subscription_update" && flow.subscription) return `/portal/subscriptions/${flow.subscription}/change`;
  if (flow?.type === "payment_method_update") return "/portal/payment-method";
  return "/portal";
}

/**
 * Opens a portal link: once and within the hour, it starts the portal session (the cookie) and
 * goes to the portal; otherwise to the page saying why, with the way back.
 */
export async function GET(_request: Request, { params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const opened = await openPortalLink(token);
  if (!opened.ok) return new Response(null, { status: 303, headers: { ...HEADERS, Location: `/portal/start/${token}/refused` } });
  const cookie = [
    `${PORTAL_COOKIE}=${opened.cookieToken}`,
    "Path=/portal",
    "HttpOnly",
    // No Max-Age: a browser-session cookie. The 30 minutes idle are the server's (last_seen_at),
    // which a fixed Max-Age could not follow (it would end an active session at 30 minutes).
    "SameSite=Lax",
    ...(publicBaseUrl().startsWith("https:") ? ["Secure"] : []),
  ].join("; ");
  return new Response(null, { status: 303, headers: { ...HEADERS, Location: landingOf(opened.session.flow ?? null), "Set-Cookie": cookie } });
}
