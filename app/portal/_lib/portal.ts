import { cache } from "react";
import { cookies } from "next/headers";
import { notFound, redirect } from "next/navigation";
import { ServiceError } from "@/lib/errors";
import { portalReturnUrl, portalSessionOf, PORTAL_COOKIE, type PortalSession } from "@/lib/portal/sessions";
import { portalSettings } from "@/lib/portal/view";

/** The portal session of this request's cookie, or the "session ended" page. Cached per request. */
export const requirePortal = cache(async (): Promise<PortalSession> => {
  const session = await portalSessionOf((await cookies()).get(PORTAL_COOKIE)?.value);
  if (!session) redirect("/portal/ended");
  return session;
});

/** The session with what every portal page shows around its content. */
export const portalPage = cache(async () => {
  const session = await requirePortal();
  const [settings, returnUrl] = await Promise.all([portalSettings(session), portalReturnUrl(session)]);
  return { session, settings, returnUrl };
});

/** A service's "not found" (another customer's id, a feature turned off) is this page's 404. */
export async function orNotFound<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof ServiceError && error.category === "not_found") notFound();
    throw error;
  }
}
