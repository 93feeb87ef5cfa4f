import Link from "next/link";
import type { ReactNode } from "react";

export function AuthFrame({ title, children, footer }: { title: string; children: ReactNode; footer: ReactNode }) {
  return (
    <main className="mx-auto flex min-h-screen max-w-sm flex-col justify-center px-4 py-12">
      <p className="mb-6 text-center text-lg font-semibold">Billing</p>
      <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
        <h1 className="mb-4 text-xl font-semibold">{title}</h1>
        {children}
      </div>
      <div className="mt-4 text-center text-sm text-slate-600">{footer}</div>
      <p className="mt-8 text-center text-xs text-slate-500">
        <Link className="underline" href="/reference">
          API reference
        </Link>
      </p>
    </main>
  );
}

/** For useSyncExternalStore: nothing to subscribe to, only the server/client difference matters. */
export const noSubscription = () => () => {};
