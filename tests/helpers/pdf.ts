import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
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

const spacesOf = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, " ");

/** The text of a PDF (Debian's poppler-utils), every run of white space (no-break ones too) as one space. */
export function pdfText(bytes: Buffer): string {
  return spacesOf(withFile(bytes, (file) => execFileSync("pdftotext", ["-layout", file, "-"], { encoding: "utf8" })));
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

type PrintedInvoice = { number: string; currency: string; subtotal_atom: number; tax_atom: number; total_amount_atom: number; total_taxes: { amount_atom: number }[]; lines: { amount_atom: number }[] };

/**
 * What the issue asks of every finalized invoice's PDF: a sound file whose text has the number,
 * every line's description and amount, the subtotal, the tax and the total exactly as the JSON says.
 */
export function expectPdfMatches(bytes: Buffer, invoice: PrintedInvoice, lineTitles: string[], locale: string): string[] {
  const problems: string[] = [];
  try {
    qpdfCheck(bytes);
  } catch (error) {
    problems.push(`qpdf --check failed: ${String(error)}`);
  }
  return [...problems, ...missingFromText(pdfText(bytes), invoice, lineTitles, locale)];
}

const execFileAsync = promisify(execFile);

/**
 * expectPdfMatches without blocking the process: qpdf and pdftotext run side by side, and the
 * caller may check several documents at once (tests/helpers/pdf-check.ts: the run's teardown checks
 * hundreds, one after the other they kept a core idle).
 */
export async function expectPdfMatchesAsync(bytes: Buffer, invoice: PrintedInvoice, lineTitles: string[], locale: string): Promise<string[]> {
  const dir = await mkdtemp(path.join(tmpdir(), "invoice-pdf-"));
  try {
    const file = path.join(dir, "invoice.pdf");
    await writeFile(file, bytes);
    const [checked, text] = await Promise.all([
      execFileAsync("qpdf", ["--check", file], { encoding: "utf8" }).then(
        () => [],
        (error: unknown) => [`qpdf --check failed: ${String(error)}`],
      ),
      execFileAsync("pdftotext", ["-layout", file, "-"], { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 }).then(({ stdout }) => spacesOf(stdout)),
    ]);
    return [...checked, ...missingFromText(text, invoice, lineTitles, locale)];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The pieces of the invoice its PDF's text (pdfText's spacing) lacks. */
function missingFromText(text: string, invoice: PrintedInvoice, lineTitles: string[], locale: string): string[] {
  const problems: string[] = [];
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
