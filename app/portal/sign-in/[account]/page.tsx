import type { Metadata } from "next";
import { PORTAL_SIGN_IN_ANSWER } from "@/lib/portal/sign-in";

/*
 * `same-origin`, not `no-referrer`: under `no-referrer` a browser posts the form with `Origin: null`,
 * which the cross-site check refuses (lib/http/guard.ts); the page's URL holds no secret, and no
 * other site is told it.
 */
export const metadata: Metadata = { title: "Sign in to your billing portal", robots: { index: false, follow: false }, referrer: "same-origin" };
export const dynamic = "force-dynamic";

/**
 * The account's portal page: a customer enters their email and is sent a single-use sign-in link
 * (lib/portal/sign-in.ts). The page answers the same whether or not the email is a customer's.
 */
export default async function PortalSignInPage({ params, searchParams }: { params: Promise<{ account: string }>; searchParams: Promise<{ sent?: string; error?: string }> }) {
  const { account } = await params;
  const { sent, error } = await searchParams;
  return (
    <main className="mx-auto max-w-lg px-4 py-12">
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-2 text-xl font-semibold">Sign in to your billing portal</h1>
        {sent && (
          <p role="status" className="mb-4 rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900" data-testid="sign-in-sent">
            {PORTAL_SIGN_IN_ANSWER}
          </p>
        )}
        {error && (
          <p role="alert" className="mb-4 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900" data-testid="sign-in-error">
            {error}
          </p>
        )}
        <form method="post" action={`/portal/sign-in/${encodeURIComponent(account)}/send`} className="space-y-3">
          <label className="block text-sm font-medium text-slate-700">
            Email
            <input type="email" name="email" required maxLength={254} className="mt-1 block w-full rounded border border-slate-300 px-3 py-2" data-testid="sign-in-email" />
          </label>
          <button type="submit" className="rounded bg-indigo-600 px-3 py-2 text-sm font-medium text-white" data-testid="sign-in-submit">
            Email me a sign-in link
          </button>
        </form>
      </div>
    </main>
  );
}
