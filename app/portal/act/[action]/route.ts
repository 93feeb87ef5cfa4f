import type { NextRequest } from "next/server";
import { ServiceError } from "@/lib/errors";
import { portalRequestAction, type PortalForm } from "@/lib/portal/form-actions";
import { portalSessionOf, PORTAL_COOKIE, sameHost } from "@/lib/portal/sessions";

/** A redirect after a form (303: the browser GETs the next page). A relative Location stays on this host. */
const seeOther = (location: string) => new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

/** Where a form's errors return: one of the portal's own pages, never elsewhere. */
function backOf(form: PortalForm): string {
  const back = form.back ?? "/portal";
  return /^\/portal(\/[A-Za-z0-9_/-]*)?$/.test(back) ? back : "/portal";
}

const withParam = (path: string, name: string, value: string) => `${path}?${new URLSearchParams({ [name]: value })}`;

/**
 * Every change a customer makes in the portal: a form POST here (works without JavaScript). The
 * cookie is SameSite=Lax, so another site's form does not carry it; the Origin must be this host.
 */
export async function POST(request: NextRequest, { params }: { params: Promise<{ action: string }> }) {
  if (!sameHost(request)) return new Response("Cross-site request refused.", { status: 403 });
  const session = await portalSessionOf(request.cookies.get(PORTAL_COOKIE)?.value, request.headers.get("x-correlation-id"));
  if (!session) return seeOther("/portal/ended");
  const { action } = await params;
  const form: PortalForm = {};
  for (const [name, value] of (await request.formData()).entries()) if (typeof value === "string") form[name] = value;
  try {
    const next = await portalRequestAction(session, action, form);
    return seeOther(next);
  } catch (error) {
    if (!(error instanceof ServiceError)) throw error;
    if (error.category === "not_found") return new Response("Not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    const fields = (error.extras.errors as { field: string; message: string }[] | undefined) ?? [];
    const message = fields.length > 0 ? fields.map((e) => `${e.field}: ${e.message}`).join(" ") : error.message;
    return seeOther(withParam(backOf(form), "error", message));
  }
}
