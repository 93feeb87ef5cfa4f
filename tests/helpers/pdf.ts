import { execFile, execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
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

/** The model's own formatters (not lib/intl.ts: the check stays independent of the code it checks), made once each. */
const currencyFormats = new Map<string, Intl.NumberFormat>();

/** Money as the PDF prints it, spaces normalized as pdfText does. */
export function printedMoney(atoms: number, currency: string, locale: string): string {
  // ISO 4217's minor unit (the project's table), not ICU's digits: HUF atoms are fillér, 2 decimals.
  const exponent = isoExponent(currency) ?? 2;
  const digits = Math.abs(atoms).toString().padStart(exponent + 1, "0");
  const decimal = exponent === 0 ? digits : `${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`;
  const key = `${locale} ${currency} ${exponent}`;
  let format = currencyFormats.get(key);
  if (!format) currencyFormats.set(key, (format = new Intl.NumberFormat(locale, { style: "currency", currency, minimumFractionDigits: exponent, maximumFractionDigits: exponent })));
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

/** A document for expectPdfsMatchAsync: its bytes and what its text must show. */
export type PdfToCheck = { bytes: Buffer; invoice: PrintedInvoice; lineTitles: string[]; locale: string };

/**
 * Checks each file named on its command line with qpdf and pdftotext, in one shell: a spawn from
 * the test process costs a fork of all its memory (about 20 ms of CPU each here), so one per
 * document and tool was most of the run's PDF check. Beside each <file>: <file>.txt (its text),
 * <file>.qpdf (qpdf's output, only when it failed), <file>.err (pdftotext's, only when it failed).
 */
const CHECK_FILES = `for f do
  if q=$(qpdf --check "$f" 2>&1); then :; else printf '%s' "$q" > "$f.qpdf"; fi
  if t=$(pdftotext -layout "$f" "$f.txt" 2>&1); then :; else printf '%s' "$t" > "$f.err"; fi
done`;

async function readIfPresent(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}

/**
 * expectPdfMatches for many documents without blocking the process: one shell runs qpdf and
 * pdftotext over all of them (tests/helpers/pdf-check.ts runs a few such batches side by side).
 * Each document's problems, in order; a file pdftotext cannot read throws.
 */
export async function expectPdfsMatchAsync(documents: readonly PdfToCheck[]): Promise<string[][]> {
  const dir = await mkdtemp(path.join(tmpdir(), "invoice-pdf-"));
  try {
    const files = await Promise.all(
      documents.map(async (document, index) => {
        const file = path.join(dir, `${index}.pdf`);
        await writeFile(file, document.bytes);
        return file;
      }),
    );
    await execFileAsync("sh", ["-c", CHECK_FILES, "pdf-check", ...files]);
    return await Promise.all(
      documents.map(async (document, index) => {
        const file = files[index]!;
        const unreadable = await readIfPresent(`${file}.err`);
        if (unreadable !== undefined) throw new Error(`pdftotext could not read document ${index}: ${unreadable}`);
        const qpdf = await readIfPresent(`${file}.qpdf`);
        const text = spacesOf(await readFile(`${file}.txt`, "utf8"));
        return [...(qpdf === undefined ? [] : [`qpdf --check failed: ${qpdf}`]), ...missingFromText(text, document.invoice, document.lineTitles, document.locale)];
      }),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** expectPdfMatches without blocking the process (expectPdfsMatchAsync for one document). */
export async function expectPdfMatchesAsync(bytes: Buffer, invoice: PrintedInvoice, lineTitles: string[], locale: string): Promise<string[]> {
  const [problems] = await expectPdfsMatchAsync([{ bytes, invoice, lineTitles, locale }]);
  return problems!;
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
