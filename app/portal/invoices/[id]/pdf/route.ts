import { ServiceError } from "@/lib/errors";
import { portalSessionOf, PORTAL_COOKIE } from "@/lib/portal/sessions";
import { portalInvoicePdf } from "@/lib/portal/view";
import type { NextRequest } from "next/server";

/** An invoice's PDF for the portal session's customer: another customer's invoice is a 404, as an unknown one. */
export async function GET(request: NextRequest, { params }: { params: Promise<{ id: string }> }) {
  const session = await portalSessionOf(request.cookies.get(PORTAL_COOKIE)?.value);
  if (!session) return new Response(null, { status: 303, headers: { Location: "/portal/ended" } });
  const { id } = await params;
  try {
    const { bytes, number } = await portalInvoicePdf(session, id);
    return new Response(new Uint8Array(bytes), {
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `attachment; filename="${number.replace(/[^A-Za-z0-9_-]/g, "_")}.pdf"`,
        "Cache-Control": "private, no-store",
      },
    });
  } catch (error) {
    if (error instanceof ServiceError && (error.category === "not_found" || error.category === "conflict")) {
      return new Response("Not found.", { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
    }
    throw error;
  }
}
