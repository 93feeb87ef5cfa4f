import Link from "next/link";

/** Any URL nothing answers, and an account that is not the signed-in user's. */
export default function NotFound() {
  return (
    <div className="min-h-screen">
      <header className="border-b border-slate-200 bg-white">
        <div className="mx-auto flex max-w-6xl items-center px-4 py-3">
          <Link href="/" className="font-semibold text-slate-900">
            Billing
          </Link>
        </div>
      </header>
      <main className="mx-auto max-w-6xl px-4 py-12">
        <h1 className="text-xl font-semibold">Page not found</h1>
        <p className="mt-2 text-sm text-slate-700">
          Nothing is at this address, or it belongs to an account you are not a member of.
        </p>
        <p className="mt-4 text-sm">
          <Link href="/" className="text-indigo-700 underline hover:text-indigo-900">
            Go to your dashboard
          </Link>
        </p>
      </main>
    </div>
  );
}
