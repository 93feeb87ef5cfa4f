"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { ApiError, dashboardCall, type CallInput } from "@/components/api-client";
import type { CreditNote, Invoice } from "@/components/api-types";
import { plainMessage, toAtoms } from "@/components/objects/api-form";
import { inputClass, Table } from "@/components/ui";
import { parseAmount } from "@/lib/money";
import { invoiceQueryKeys } from "./format";

/*
 * "Issue a credit note" by lines: a quantity or an amount (before discount and tax) per invoice
 * line, as `POST /credit-notes` takes them. The total of a selection (its discount share and taxes,
 * rounded per line and rate) is the API's: `POST /credit-notes/preview`, debounced, not recomputed here.
 */

type Line = Invoice["lines"][number];
type PreviewBody = CallInput<"previewCreditNote">["body"];
type LineInput = NonNullable<PreviewBody["lines"]>[number];
/** A line as sent: what does not read as a number goes as typed. */
type SentLine = { invoice_line: string; quantity?: number | string; amount_atom?: number | string };

/** The state of the previewed total of a lines selection, for the live totals. */
export type LinesPreview =
  | { status: "empty" }
  | { status: "unreadable" }
  | { status: "pending" }
  | { status: "error"; message: string }
  | { status: "ready"; totalAtom: number };

const quantityKey = (line: Line) => `qty:${line.id}`;
const amountKey = (line: Line) => `amt:${line.id}`;
const WHOLE = /^\d+$/;

/**
 * The `lines` of the body from the typed values: lines left empty are not credited. As sent
 * (`strict` false) what does not read goes as typed, for the API to name; for the preview
 * (`strict`) an unreadable entry makes the whole selection null.
 */
export function creditLines(values: Record<string, string>, lines: readonly Line[], currency: string, locale: string, strict: boolean): SentLine[] | null {
  const picked: SentLine[] = [];
  for (const line of lines) {
    const quantity = values[quantityKey(line)]?.trim();
    const amount = values[amountKey(line)]?.trim();
    if (quantity) {
      if (strict && (!WHOLE.test(quantity) || Number(quantity) < 1 || !Number.isSafeInteger(Number(quantity)))) return null;
      picked.push({ invoice_line: line.id, quantity: WHOLE.test(quantity) ? Number(quantity) : quantity });
    } else if (amount) {
      const atoms = toAtoms(amount, currency, locale);
      if (strict && (typeof atoms !== "number" || atoms < 1)) return null;
      picked.push({ invoice_line: line.id, amount_atom: atoms });
    }
  }
  return picked;
}

/** A value that stays put until it has not changed for `ms` (so typing sends one request, not one per key). */
function useSettled(value: string | null, ms: number): string | null {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** An API field `lines.N.…` as the description of the line the body's N-th entry credits. */
export function lineName(field: string, sent: readonly SentLine[] | null, lines: readonly Line[]): string | undefined {
  const index = /^lines\.(\d+)\./.exec(field)?.[1];
  const id = index === undefined ? undefined : sent?.[Number(index)]?.invoice_line;
  const line = lines.find((candidate) => candidate.id === id);
  return line ? (line.description ?? line.id) : undefined;
}

/** The API's problem in words, its `lines.N.…` fields named by the line. */
function problemText(error: Error, body: PreviewBody, lines: readonly Line[]): string {
  if (!(error instanceof ApiError) || !error.problem.errors?.length) return error.message;
  return error.problem.errors
    .map(({ field, message }) => {
      const name = lineName(field, body.lines ?? null, lines);
      return name ? `${name}: ${plainMessage(message)}` : plainMessage(message);
    })
    .join(" ");
}

/** The previewed total of the selection, once it has settled; the preview's problem when it refuses it. */
export function useLinesPreview(accountId: string, invoice: Invoice, values: Record<string, string>, locale: string): LinesPreview {
  const byLines = values.mode === "lines";
  const picked = byLines ? creditLines(values, invoice.lines, invoice.currency, locale, true) : [];
  // Strict: every entry read as a whole number of units or atoms.
  const body: PreviewBody | null = picked && picked.length > 0 ? { invoice: invoice.id, reason: "order_change", lines: picked as LineInput[] } : null;
  const key = body ? JSON.stringify(body) : null;
  const settled = useSettled(key, 300);
  const preview = useQuery({
    queryKey: [...invoiceQueryKeys.invoice(accountId, invoice.id), "credit-note-preview", settled],
    // Enabled only while `key` is `settled`, so `body` is the settled selection.
    queryFn: () => dashboardCall("previewCreditNote", { path: { account_id: accountId }, body: body! }),
    enabled: body !== null && settled === key,
    retry: false,
  });
  if (!byLines || picked?.length === 0) return { status: "empty" };
  if (picked === null || body === null) return { status: "unreadable" };
  if (settled !== key || preview.isPending) return { status: "pending" };
  if (preview.isError) return { status: "error", message: problemText(preview.error, body, invoice.lines) };
  return { status: "ready", totalAtom: preview.data.total_amount_atom };
}

/** What issued credit notes of the invoice credited on each line (by lines; by amount names no line). */
function creditedBefore(notes: readonly CreditNote[]): Map<string, number> {
  const credited = new Map<string, number>();
  for (const line of notes.filter((note) => note.status === "issued").flatMap((note) => note.lines)) {
    if (line.invoice_line) credited.set(line.invoice_line, (credited.get(line.invoice_line) ?? 0) + line.amount_atom);
  }
  return credited;
}

/** The invoice's lines with a quantity or an amount to credit each; typing one clears the other. */
export function CreditNoteLinesTable({
  lines,
  notes,
  currency,
  locale,
  values,
  set,
  money,
}: {
  lines: readonly Line[];
  notes: readonly CreditNote[];
  currency: string;
  locale: string;
  values: Record<string, string>;
  set: (patch: Record<string, string>) => void;
  money: (atoms: number) => string;
}) {
  const credited = creditedBefore(notes);
  return (
    <Table label="Lines to credit" head={["Line", "Quantity", "Amount", "Credited before", "Credit quantity", "or amount"]}>
      {lines.map((line) => {
        const name = line.description ?? line.id;
        const typed = values[amountKey(line)] ?? "";
        const parsed = typed.trim() ? parseAmount(typed, currency, locale) : null;
        return (
          <tr key={line.id}>
            <td className="px-2 py-2">{name}</td>
            <td className="px-2 py-2 tabular-nums">{line.quantity}</td>
            <td className="px-2 py-2 tabular-nums">{money(line.amount_atom)}</td>
            <td className="px-2 py-2 tabular-nums">{money(credited.get(line.id) ?? 0)}</td>
            <td className="px-2 py-2">
              <input
                className={`${inputClass} w-20`}
                inputMode="numeric"
                aria-label={`Quantity to credit: ${name}`}
                placeholder={`of ${line.quantity}`}
                value={values[quantityKey(line)] ?? ""}
                onChange={(event) => set({ [quantityKey(line)]: event.target.value, [amountKey(line)]: "" })}
              />
            </td>
            <td className="px-2 py-2">
              <input
                className={`${inputClass} w-28`}
                inputMode="decimal"
                aria-label={`Amount to credit: ${name}`}
                aria-invalid={parsed && !parsed.ok ? true : undefined}
                title={parsed && !parsed.ok ? parsed.message : "Before the line's discount and tax"}
                value={typed}
                onChange={(event) => set({ [amountKey(line)]: event.target.value, [quantityKey(line)]: "" })}
              />
            </td>
          </tr>
        );
      })}
    </Table>
  );
}
