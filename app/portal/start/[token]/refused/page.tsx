import type { Metadata } from "next";
import { refusedLink } from "@/lib/portal/sessions";

export const metadata: Metadata = { title: "Link no longer valid", robots: { index: false, follow: false }, referrer: "no-referrer" };
export const dynamic = "force-dynamic";

const WHY = {
  used: "This link was already used. Each link opens the portal once.",
  expired: "This link has expired. Links are valid for one hour.",
  unknown: "This link is not valid.",
};

/** A used, expired or unknown portal link: what happened, and the way back to the merchant's site. */
export default async function RefusedLinkPage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const { reason, returnUrl } = await refusedLink(token);
  return (
    <main className="mx-auto max-w-lg px-4 py-12">
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-2 text-xl font-semibold">This link cannot be opened</h1>
        <p className="text-sm text-slate-700" data-testid="refused-reason" data-reason={reason}>
          {WHY[reason]}
        </p>
        <p className="mt-2 text-sm text-slate-700">Ask for a new link from the site where you manage your account.</p>
        {returnUrl && (
          <p className="mt-4">
            <a href={returnUrl} className="text-sm font-medium text-indigo-700 underline" data-testid="refused-return">
              Return to the site
            </a>
          </p>
        )}
      </div>
    </main>
  );
}
