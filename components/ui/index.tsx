"use client";

import { useState, type ButtonHTMLAttributes, type ReactNode } from "react";
import { ApiError } from "@/components/api-client";
import { useCan } from "@/components/dashboard/role";
import type { Role } from "@/lib/auth/roles";

/** Shared UI pieces of the dashboard. Keep pages consistent: use these before writing new ones. */

export function Button({
  variant = "primary",
  className = "",
  ...props
}: ButtonHTMLAttributes<HTMLButtonElement> & { variant?: "primary" | "secondary" | "danger" }) {
  const styles = {
    primary: "bg-slate-900 text-white hover:bg-slate-700",
    secondary: "border border-slate-300 bg-white text-slate-800 hover:bg-slate-50",
    danger: "bg-red-600 text-white hover:bg-red-500",
  }[variant];
  return (
    <button
      type="button"
      {...props}
      className={`rounded px-3 py-1.5 text-sm font-medium focus:outline-none focus-visible:ring-2 focus-visible:ring-indigo-500 disabled:opacity-50 ${styles} ${className}`}
    />
  );
}

export function Card({ title, actions, children }: { title?: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="rounded-lg border border-slate-200 bg-white p-4 shadow-sm">
      {(title || actions) && (
        <div className="mb-3 flex flex-wrap items-center justify-between gap-2">
          {title && <h2 className="text-base font-semibold">{title}</h2>}
          {actions}
        </div>
      )}
      {children}
    </section>
  );
}

/**
 * A "New …" button above a list that opens its form in a card of the same title, with Close: on its
 * own row under the page title (the header wraps), not squeezed beside it.
 */
export function CreatePanel({
  title,
  open: openAtFirst = false,
  needs = "admin",
  children,
}: {
  title: string;
  open?: boolean;
  /** The least role that may create (billing objects: admin); hidden from the others. */
  needs?: Role;
  children: ReactNode;
}) {
  const [open, setOpen] = useState(openAtFirst);
  const allowed = useCan(needs);
  if (!allowed) return null;
  if (!open) return <Button onClick={() => setOpen(true)}>{title}</Button>;
  return (
    <div className="w-full">
      <Card title={title} actions={<Button variant="secondary" onClick={() => setOpen(false)}>Close</Button>}>
        {children}
      </Card>
    </div>
  );
}

export function PageHeader({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="mb-4 flex flex-wrap items-center justify-between gap-2">
      <h1 className="text-xl font-semibold">{title}</h1>
      {children}
    </div>
  );
}

/** A scrollable table that stays usable at phone width. */
export function Table({ head, children, label }: { head: ReactNode[]; children: ReactNode; label: string }) {
  return (
    // Focusable, so keyboard users can scroll a wide table.
    <div className="relative overflow-x-auto" role="region" aria-label={label} tabIndex={0}>
      <table className="w-full min-w-[36rem] text-left text-sm" aria-label={label}>
        <thead className="border-b border-slate-200 text-xs uppercase text-slate-500">
          <tr>
            {head.map((cell, i) => (
              <th key={i} scope="col" className="px-2 py-2 font-medium">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">{children}</tbody>
      </table>
    </div>
  );
}

const STATUS_STYLES: Record<string, string> = {
  delivered: "bg-emerald-100 text-emerald-800",
  active: "bg-emerald-100 text-emerald-800",
  enabled: "bg-emerald-100 text-emerald-800",
  pending: "bg-sky-100 text-sky-800",
  delivering: "bg-sky-100 text-sky-800",
  retrying: "bg-amber-100 text-amber-900",
  failed: "bg-red-100 text-red-800",
  revoked: "bg-slate-200 text-slate-700",
  disabled: "bg-slate-200 text-slate-700",
  // Invoices
  paid: "bg-emerald-100 text-emerald-800",
  open: "bg-sky-100 text-sky-800",
  draft: "bg-slate-100 text-slate-700",
  void: "bg-slate-200 text-slate-700",
  uncollectible: "bg-red-100 text-red-800",
  // Subscriptions (active is above)
  trialing: "bg-violet-100 text-violet-800",
  past_due: "bg-red-100 text-red-800",
  paused: "bg-amber-100 text-amber-900",
  cancelled: "bg-slate-200 text-slate-700",
  // Disputes
  needs_response: "bg-amber-100 text-amber-900",
  warning_needs_response: "bg-amber-100 text-amber-900",
  under_review: "bg-sky-100 text-sky-800",
  warning_under_review: "bg-sky-100 text-sky-800",
  won: "bg-emerald-100 text-emerald-800",
  lost: "bg-red-100 text-red-800",
  warning_closed: "bg-slate-200 text-slate-700",
};

export function StatusBadge({ status, label }: { status: string; label?: string }) {
  return (
    <span className={`inline-block rounded px-2 py-0.5 text-xs font-medium ${STATUS_STYLES[status] ?? "bg-slate-100 text-slate-700"}`}>
      {label ?? status}
    </span>
  );
}

export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <Button
      variant="secondary"
      onClick={async () => {
        await navigator.clipboard?.writeText(value).catch(() => undefined);
        setCopied(true);
        setTimeout(() => setCopied(false), 2000);
      }}
    >
      {copied ? "Copied" : label}
    </Button>
  );
}

/** A secret shown exactly once, with a copy button and a warning. */
export function ShownOnce({ label, value }: { label: string; value: string }) {
  return (
    <div role="alert" className="rounded border border-amber-300 bg-amber-50 p-3">
      <p className="text-sm font-medium text-amber-900 [overflow-wrap:anywhere]">{label}: copy it now. It will not be shown again.</p>
      <div className="mt-2 flex flex-wrap items-center gap-2">
        <code data-testid="shown-once-value" className="break-all rounded bg-white px-2 py-1 font-mono text-sm">
          {value}
        </code>
        <CopyButton value={value} />
      </div>
    </div>
  );
}

/** Text cut to one line, the whole of it on hover: long names never push a row's buttons away. */
export function Truncated({ text, className = "" }: { text: string; className?: string }) {
  return (
    <span className={`block max-w-[18rem] truncate ${className}`} title={text}>
      {text}
    </span>
  );
}

export function Loading({ what = "Loading" }: { what?: string }) {
  return (
    <p role="status" aria-live="polite" className="py-4 text-sm text-slate-500">
      {what}…
    </p>
  );
}

export function ErrorBox({ error }: { error: unknown }) {
  const message = error instanceof Error ? error.message : "Something went wrong.";
  const requestId = error instanceof ApiError ? error.problem.request_id : undefined;
  return (
    <div role="alert" className="rounded border border-red-300 bg-red-50 p-3 text-sm text-red-800">
      {message}
      {requestId && <span className="block text-xs text-red-600">Request id: {requestId}</span>}
    </div>
  );
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  // "long" time carries the zone (e.g. "10:05:00 AM UTC"): a bare time is ambiguous across teams.
  return new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "long" });
}

export function Field({ label, error, children, hint }: { label: string; error?: string; children: ReactNode; hint?: string }) {
  return (
    <label className="block text-sm">
      <span className="mb-1 block font-medium text-slate-800">{label}</span>
      {children}
      {hint && <span className="mt-1 block text-xs text-slate-500">{hint}</span>}
      {error && (
        <span role="alert" className="mt-1 block text-xs text-red-700">
          {error}
        </span>
      )}
    </label>
  );
}

export const inputClass =
  "w-full rounded border border-slate-300 px-2 py-1.5 text-sm focus:border-indigo-500 focus:outline-none focus:ring-1 focus:ring-indigo-500";
