import Link from "next/link";
import type { ReactNode } from "react";
import type { PortalSettings } from "@/lib/portal/schema";

/** The portal's frame: the merchant's branding, the sections the configuration enables, the way back. */
export function PortalShell({ settings, returnUrl, children }: { settings: PortalSettings; returnUrl: string | null; children: ReactNode }) {
  const { branding, features } = settings;
  const accent = branding.accent_color ?? "#4338ca";
  const links = [
    { href: "/portal", label: "Subscriptions", shown: true },
    { href: "/portal/invoices", label: "Invoices", shown: features.invoice_history.enabled },
    { href: "/portal/details", label: "Billing details", shown: features.customer_update.enabled },
    { href: "/portal/payment-method", label: "Payment method", shown: features.payment_method_update.enabled },
  ].filter((link) => link.shown);
  return (
    <div className="min-h-screen" style={{ ["--portal-accent" as string]: accent }}>
      <header className="border-b-4 bg-white" style={{ borderColor: accent }}>
        <div className="mx-auto flex max-w-3xl flex-wrap items-center gap-3 px-4 py-3">
          {/* The schema accepts only https: logos; a merchant's image on its own host, not one for next/image to optimize. */}
          {/* eslint-disable-next-line @next/next/no-img-element */}
          {branding.logo_url && <img src={branding.logo_url} alt="" className="h-8 w-auto" />}
          <span className="font-semibold">{branding.business_name ?? "Billing"}</span>
          {returnUrl && (
            <a href={returnUrl} className="ml-auto text-sm underline" data-testid="portal-return">
              ← Return
            </a>
          )}
        </div>
        <nav aria-label="Portal" className="mx-auto flex max-w-3xl flex-wrap gap-x-4 gap-y-1 px-4 pb-2 text-sm">
          {links.map((link) => (
            <Link key={link.href} href={link.href} className="text-slate-700 underline-offset-2 hover:underline">
              {link.label}
            </Link>
          ))}
        </nav>
      </header>
      <main className="mx-auto max-w-3xl px-4 py-6">{children}</main>
    </div>
  );
}

/** A notice or an error carried back by the redirect of a form (`?notice=` / `?error=`). */
export function Flash({ notice, error }: { notice?: string; error?: string }) {
  return (
    <>
      {notice && (
        <p role="status" className="mb-4 rounded border border-emerald-300 bg-emerald-50 px-3 py-2 text-sm text-emerald-900">
          {notice}
        </p>
      )}
      {error && (
        <p role="alert" className="mb-4 rounded border border-red-300 bg-red-50 px-3 py-2 text-sm text-red-900">
          {error}
        </p>
      )}
    </>
  );
}

/** A primary button in the merchant's accent colour. */
export function PrimaryButton({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <button type="submit" data-testid={testId} className="rounded px-3 py-2 text-sm font-medium text-white" style={{ backgroundColor: "var(--portal-accent)" }}>
      {children}
    </button>
  );
}

export function SecondaryButton({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <button type="submit" data-testid={testId} className="rounded border border-slate-300 bg-white px-3 py-2 text-sm font-medium text-slate-800">
      {children}
    </button>
  );
}

/** A form posting to one portal action; `back` is where errors return to. */
export function ActionForm({ action, back, fields, children, className }: { action: string; back: string; fields?: Record<string, string>; children: ReactNode; className?: string }) {
  return (
    <form method="post" action={`/portal/act/${action}`} className={className}>
      <input type="hidden" name="back" value={back} />
      {Object.entries(fields ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {children}
    </form>
  );
}
