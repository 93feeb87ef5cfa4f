/**
 * The default invoice prefix (docs/rules/invoices.md, "The default prefix"): the business name
 * (else the account's name) folded to ASCII uppercase A-Z and 0-9 per word; its first word when
 * that has 3 to 6 characters ("Acme Inc" → ACME), else the first 6 characters of the whole
 * ("Société Générale" → SOCIET); "INV" when fewer than 3 remain (e.g. a name in another script).
 * Pure, so the dashboard can show the same default.
 */
export function defaultInvoicePrefix(name: string | null): string {
  const words = (name ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .split(/\s+/)
    .map((word) => word.replace(/[^A-Z0-9]/g, ""))
    .filter((word) => word !== "");
  const [first = ""] = words;
  if (first.length >= 3 && first.length <= 6) return first;
  const folded = words.join("").slice(0, 6);
  return folded.length >= 3 ? folded : "INV";
}

/** The prefix in force: the one set, else the default. */
export function effectiveInvoicePrefix(account: { invoicePrefix: string | null; businessName: string | null; name: string }): string {
  return account.invoicePrefix ?? defaultInvoicePrefix(account.businessName ?? account.name);
}
