// Pure: the invoices' discount and the dashboard read it.

/** An amount-off coupon's amounts: its own (`amountOffAtom` in `currency`) and its currency options. */
export type AmountOffTerms = {
  amountOffAtom: number | null;
  currency: string | null;
  currencyOptions: Readonly<Record<string, { amount_off_atom: number }>> | null;
};

/**
 * What an amount-off coupon takes off an invoice in `currency`, in that currency's atoms: its own
 * amount in its own currency, its currency option's in another (Stripe's
 * `coupon.currency_options`), null when it has no amount in `currency` (it then does not apply to
 * the invoice and is not used up by it). No exchange rate is ever applied.
 */
export function amountOffIn(coupon: AmountOffTerms, currency: string): number | null {
  if (coupon.amountOffAtom === null || coupon.currency === null) return null;
  if (coupon.currency === currency) return coupon.amountOffAtom;
  return coupon.currencyOptions?.[currency]?.amount_off_atom ?? null;
}
