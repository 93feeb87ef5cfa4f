import type { ReactNode } from "react";
import type { FormContext } from "@/components/objects/api-form";
import { parseAmount } from "@/lib/money";
import type { LinesPreview } from "./credit-note-lines";

/*
 * The live totals beside "Issue a credit note": the credit note's total as typed, what the invoice
 * has left to credit, and on a paid invoice how much of the total the refund / credit / out-of-band
 * split covers. The rules are the API's (lib/credit-notes/plan.ts), repeated here only to explain;
 * the server still decides. By lines, the total is the API's preview of the selection.
 */

type Terms = { currency: string; paid: boolean; creditableAtom: number; dueAtom: number; money: (atoms: number) => string; preview: LinesPreview };

/** By lines: the previewed total (null until there is one) and why there is none. */
function previewed(preview: LinesPreview): { total: number | null; shown: string | null; blocked: string | null } {
  switch (preview.status) {
    case "ready":
      return { total: preview.totalAtom, shown: null, blocked: null };
    case "pending":
      return { total: null, shown: "…", blocked: null };
    case "empty":
      return { total: null, shown: "—", blocked: "Give a quantity or an amount on at least one line." };
    case "unreadable":
      return { total: null, shown: "—", blocked: null };
    case "error":
      return { total: null, shown: "—", blocked: preview.message };
  }
}

/** Typed money as atoms: null when empty, NaN when it does not read as an amount (the form names it on submit). */
function atomsOf(typed: string | undefined, currency: string, locale: string): number | null {
  if (!typed?.trim()) return null;
  const parsed = parseAmount(typed, currency, locale);
  return parsed.ok ? parsed.atoms : Number.NaN;
}

function Row({ label, value, testId, strong }: { label: string; value: string; testId: string; strong?: boolean }) {
  return (
    <div className="flex justify-between gap-4">
      <dt>{label}</dt>
      <dd className={`tabular-nums ${strong ? "font-semibold" : ""}`} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

export function creditNoteTotals(terms: Terms) {
  const { currency, paid, creditableAtom, dueAtom, money, preview } = terms;
  // Before payment a credit note lowers the amount due, so that bounds it too.
  const maxAtom = paid ? creditableAtom : Math.min(creditableAtom, dueAtom);
  return (values: Record<string, string>, { locale }: FormContext): { content: ReactNode; blocked: string | null } => {
    const byLines = values.mode === "lines" ? previewed(preview) : null;
    const total = byLines ? byLines.total : atomsOf(values.amount, currency, locale);
    const parts = paid ? [values.refund, values.credit, values.out_of_band].map((typed) => atomsOf(typed, currency, locale)) : [];
    const named = parts.some((part) => part !== null);
    const split = parts.reduce<number>((sum, part) => sum + (part ?? 0), 0);
    const readable = total !== null && !Number.isNaN(total) && !Number.isNaN(split);
    const shown = (atoms: number | null) => (atoms === null || Number.isNaN(atoms) ? (byLines?.shown ?? "—") : money(atoms));
    // By lines, the selection's own problem (nothing picked, the preview's refusal) comes first.
    let blocked: string | null = byLines?.blocked ?? null;
    if (blocked === null && readable && total > maxAtom) blocked = `The total is more than the ${money(maxAtom)} left to credit on this invoice.`;
    else if (blocked === null && readable && paid && named && split !== total) {
      blocked =
        split < total
          ? `Refund + credit + out of band is ${money(split)}: allocate ${money(total - split)} more, or leave all three empty to credit the whole total to the balance.`
          : `Refund + credit + out of band is ${money(split)}: ${money(split - total)} more than the credit note's total.`;
    }
    const content = (
      <dl className="space-y-1 rounded border border-slate-200 bg-slate-50 p-3 text-sm" aria-label="Credit note totals" aria-live="polite">
        <Row label="Credit note total" value={shown(total)} testId="cn-total" strong />
        <Row label="Left to credit on the invoice" value={money(creditableAtom)} testId="cn-creditable" />
        {!paid && <Row label="Amount due after it" value={readable ? money(Math.max(0, dueAtom - total)) : "—"} testId="cn-due-after" />}
        {paid && (
          <>
            <Row label="Refund + credit + out of band" value={named ? shown(split) : `${shown(total)} (all to the balance)`} testId="cn-split" />
            <Row label="Remaining to allocate" value={!named ? money(0) : readable ? money(total - split) : "—"} testId="cn-remaining" />
          </>
        )}
      </dl>
    );
    return { content, blocked };
  };
}
