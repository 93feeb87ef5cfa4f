import { validationFailed } from "@/lib/errors";
import { currenciesOf, termsIn, type PriceInCurrencies, type PriceTerms } from "./amount";

/**
 * The price's terms in `currency` (lib/prices/amount.ts, `termsIn`), or the 422 that names the
 * price and the currency on `field` when the price has no amount in it: a customer billed in eur
 * cannot be billed a usd price without an eur currency option (no exchange rate is ever applied).
 */
export function requireTermsIn(price: PriceInCurrencies & { id: string }, currency: string, field: string): PriceTerms {
  const terms = termsIn(price, currency);
  if (terms) return terms;
  const message = `Price '${price.id}' has no ${currency} amount: it bills in ${currenciesOf(price).join(", ")} (add a currency option for ${currency} on a new price).`;
  throw validationFailed([{ field, message }], message);
}

/** Whether the price can bill in `currency` (its own or one of its currency options). */
export const billsIn = (price: PriceInCurrencies, currency: string): boolean => termsIn(price, currency) !== null;
