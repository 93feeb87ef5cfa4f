import { currencyExponent, parseAmount } from "@/lib/money";

/** What forms send and show: plain words for validator messages, typed money as atoms. */

/**
 * Validator wording in plain words: "Too big: expected string to have <=2048 characters" reads
 * "At most 2048 characters." The API's own sentences pass through unchanged.
 */
export function plainMessage(message: string): string {
  const size = /^Too (big|small): expected (\w+) to (?:have|be) ([<>]=?)\s*([\d.]+)\s*(\w*)/.exec(message);
  if (size) {
    const [, , type, op, limit, unit] = size;
    const most = op!.startsWith("<");
    if (type === "string") return `${most ? "At most" : "At least"} ${limit} ${limit === "1" ? "character" : unit || "characters"}.`;
    if (type === "array") return `${most ? "At most" : "At least"} ${limit} items.`;
    return `Must be ${most ? "at most" : "at least"} ${limit}.`;
  }
  const invalid = /^Invalid input: expected (\w+), received (\w+)/.exec(message);
  if (invalid) return invalid[2] === "undefined" ? "Required." : `Must be a ${invalid[1]}.`;
  if (/^Invalid option: expected one of/.test(message)) return `Must be one of ${message.replace(/^Invalid option: expected one of\s*/, "").replaceAll("|", ", ")}.`;
  return message;
}

/**
 * Money as the user types it in their locale ("12.50", "12,50" in `de`) to integer atoms of the
 * currency (lib/money.ts parseAmount). What does not parse is sent as typed: the API names it.
 */
export function toAtoms(value: string, currency: string, locale: string): number | string {
  // An unknown currency is refused by the API beside its own field: the amount reads as 2 decimals
  // meanwhile, so that the one problem shows once.
  const parsed = parseAmount(value, currencyExponent(currency) === null ? "eur" : currency, locale);
  return parsed.ok ? parsed.atoms : value.trim();
}

/**
 * "eur 11.50; jpy 1600" as the API's `currency_options` ({eur: {<amountKey>: 1150}, …}): a price's
 * `unit_amount_atom` or a coupon's `amount_off_atom` per currency, each amount read in its own
 * currency's minor units. Semicolons separate the currencies, as a comma may be a decimal
 * separator. What does not read goes as written, for the API to name.
 */
export function currencyOptionsBody<Key extends string>(
  text: string,
  amountKey: Key,
  locale: string,
): { currency_options?: Record<string, Record<Key, number | string>> } {
  const entries = text
    .split(/[;\n]+/)
    .map((entry) => entry.trim())
    .filter((entry) => entry !== "")
    .map((entry) => {
      const [code = "", ...amount] = entry.split(/\s+/);
      const currency = code.toLowerCase();
      return [currency, { [amountKey]: toAtoms(amount.join(" "), currency, locale) } as Record<Key, number | string>] as const;
    });
  return entries.length > 0 ? { currency_options: Object.fromEntries(entries) } : {};
}
