import { z } from "zod";
import { clientAddress, limitPortalSignIn, throttledMessage } from "@/lib/api/rate-limit";
import { ServiceError } from "@/lib/errors";
import { requestPortalSignIn } from "@/lib/portal/sign-in";

const seeOther = (location: string) => new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

/** The sign-in page's form (works without JavaScript): the same redirect whether or not the email is a customer's. */
export async function POST(request: Request, { params }: { params: Promise<{ account: string }> }) {
  const { account } = await params;
  const page = `/portal/sign-in/${encodeURIComponent(account)}`;
  const email = (await request.formData()).get("email");
  const parsed = z.email().max(254).safeParse(typeof email === "string" ? email.trim() : "");
  if (!parsed.success) return seeOther(`${page}?${new URLSearchParams({ error: "Enter a valid email address." })}`);
  const throttled = await limitPortalSignIn(clientAddress(request), account, parsed.data);
  if (throttled) return seeOther(`${page}?${new URLSearchParams({ error: throttledMessage(throttled) })}`);
  try {
    await requestPortalSignIn({ accountId: account, email: parsed.data });
  } catch (error) {
    if (error instanceof ServiceError && error.category === "not_found") return seeOther(`${page}?${new URLSearchParams({ error: "This portal does not exist." })}`);
    throw error;
  }
  return seeOther(`${page}?sent=1`);
}
