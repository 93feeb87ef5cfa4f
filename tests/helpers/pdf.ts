import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { isoExponent } from "@/lib/currencies";

/** A GET of a document (not JSON, so not through the contract-checked client): status, type and bytes. */
export async function download(url: string, token?: string): Promise<{ status: number; contentType: string | null; bytes: Buffer }> {
  const response = await fetch(url, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  return { status: response.status, contentType: response.headers.get("content-type"), bytes: Buffer.from(await response.arrayBuffer()) };
}

export const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

function withFile<T>(bytes: Buffer, run: (file: string) => T): T {
  const dir = mkdtempSync(path.join(tmpdir(), "invoice-pdf-"));
  try {
    const file = path.join(dir, "invoice.pdf");
    writeFileSync(file, bytes);
    return run(file);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The text of a PDF (Debian's poppler-utils), every run of white space (no-break ones too) as one space. */
export function pdfText(bytes: Buffer): string {
  return withFile(bytes, (file) => execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" })).replace(/[\s\u00a0\u202f]+/g, " ");
}

/** `qpdf --check` (Debian's qpdf): throws when the file's structure is broken. */
export function qpdfCheck(bytes: Buffer): string {
  return withFile(bytes, (file) => execFileSync("qpdf", ["--check", file], { encoding: "utf8" }));
}

/** Money as the PDF prints it, spaces normalized as pdfText does. */
export function printedMoney(atoms: number, currency: string, locale: string): string {
  // ISO 4217's minor unit (the project's table), not ICU's digits: HUF atoms are fillér, 2 decimals.
  const exponent = isoExponent(currency) ?? 2;
  const digits = Math.abs(atoms).toString().padStart(exponent + 1, "0");
  const decimal = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  const format = new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent });
  const text = format.format(`${atoms < 0 ? "-" : ""}${decimal}` as Intl.StringNumericLiteral);
  return text.replace(/[\s\u00a0\u202f]+/g, " ");
}

/**
 * What the issue asks of every finalized invoice's PDF: a sound file whose text has the number,
 * every line's description and amount, the subtotal, the tax and the total exactly as the JSON says.
 */
export function expectPdfMatches(bytes: Buffer, invoice: { number: string; currency: string; subtotal_atom: number; tax_atom: number; total_amount_atom: number; total_taxes: { amount_atom: number }[]; lines: { amount_atom: number }[] }, lineTitles: string[], locale: string): string[] {
  const problems: string[] = [];
  try {
    qpdfCheck(bytes);
  } catch (error) {
    problems.push(`qpdf --check failed: ${String(error)}`);
  }
  const text = pdfText(bytes);
  const money = (atoms: number) => printedMoney(atoms, invoice.currency.toUpperCase(), locale);
  const expected = [
    invoice.number,
    ...lineTitles,
    ...invoice.lines.map((line) => money(line.amount_atom)),
    money(invoice.subtotal_atom),
    ...invoice.total_taxes.map((tax) => money(tax.amount_atom)),
    money(invoice.total_amount_atom),
  ];
  for (const piece of expected) if (!text.includes(piece.replace(/\s+/g, " "))) problems.push(`missing "${piece}"`);
  return problems;
}
