/** A price in words: its product's name, with the price's nickname when it has one ("Pro plan (Monthly)"). */
export function priceName(productName: string, nickname: string | null): string {
  return nickname ? `${productName} (${nickname})` : productName;
}
