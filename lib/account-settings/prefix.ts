/**
 * The default invoice prefix: the business name (else the account's name) folded to ASCII,
 * uppercase, only A-Z and 0-9, its first 12 characters; "INV" when fewer than 3 remain
 * (e.g. a name in another script). Pure, so the dashboard can show the same default.
 */
export function defaultInvoicePrefix(name: string | null): string {
  const folded = (name ?? "")
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]/g, "")
    .slice(0, 12);
  return folded.length >= 3 ? folded : "INV";
}

/** The prefix in force: the one set, else the default. */
export function effectiveInvoicePrefix(account: { invoicePrefix: string | null; businessName: string | null; name: string }): string {
  return account.invoicePrefix ?? defaultInvoicePrefix(account.businessName ?? account.name);
}
