import type { Metadata } from "next";

export const metadata: Metadata = { title: "Portal session ended", robots: { index: false, follow: false } };

/** No live portal session in this browser (none, or 30 minutes idle). */
export default function PortalEndedPage() {
  return (
    <main className="mx-auto max-w-lg px-4 py-12">
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-2 text-xl font-semibold">Your session has ended</h1>
        <p className="text-sm text-slate-700" data-testid="portal-ended">
          For your security, portal sessions end after 30 minutes without activity. Open the portal again from the site where you
          manage your account.
        </p>
      </div>
    </main>
  );
}
