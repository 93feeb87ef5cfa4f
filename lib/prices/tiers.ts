// Pure (no server imports): the invoice lines, the API's previews and the unit tests read it.

/** One tier: `up_to` units (inclusive; null: no bound, the last tier), a unit amount and a flat fee. */
export type Tier = { up_to: number | null; unit_amount_atom: number; flat_amount_atom?: number };

export type TiersMode = "graduated" | "volume";

/**
 * One tier's part of a tiered amount: the units it prices (`from`…`to`, inclusive, as the tier's
 * bounds print them: `to` null for the unbounded last tier), its unit amount and flat fee, and
 * what it adds (units × unit amount + flat fee).
 */
export type TierPart = { from: number; to: number | null; units: number; unitAmountAtom: number; flatAmountAtom: number; amountAtom: bigint };

/**
 * The tiers that price `quantity` units under `tiers` (sorted by `up_to`, the last one unbounded),
 * as Stripe computes it:
 *
 * - graduated: each tier prices the units that fall within it (units `prev_up_to + 1 … up_to`),
 *   plus its flat fee when at least one unit falls within it;
 * - volume: the tier the whole quantity falls in prices every unit, plus its flat fee.
 *
 * A quantity of 0 costs nothing under graduated tiers (no part) and the first tier's flat fee under
 * volume tiers (Stripe's rule). Integer arithmetic only; `bigint` so no product overflows. The
 * invoice PDF and the dashboard print these parts; `tieredAmount` is their sum.
 */
export function tierBreakdown(tiers: readonly Tier[], mode: TiersMode, quantity: number): TierPart[] {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError(`quantity must be a non-negative integer, not ${quantity}`);
  const part = (index: number, units: number): TierPart => {
    const tier = tiers[index]!;
    const from = index === 0 ? 1 : tiers[index - 1]!.up_to! + 1;
    const flat = tier.flat_amount_atom ?? 0;
    return { from, to: tier.up_to, units, unitAmountAtom: tier.unit_amount_atom, flatAmountAtom: flat, amountAtom: BigInt(units) * BigInt(tier.unit_amount_atom) + BigInt(flat) };
  };
  if (mode === "volume") {
    const index = tiers.findIndex((t) => t.up_to === null || quantity <= t.up_to);
    return [part(index === -1 ? tiers.length - 1 : index, quantity)];
  }
  const parts: TierPart[] = [];
  let below = 0;
  for (const [index, tier] of tiers.entries()) {
    if (quantity <= below) break;
    const top = tier.up_to === null ? quantity : Math.min(tier.up_to, quantity);
    if (top > below) parts.push(part(index, top - below));
    below = top;
  }
  return parts;
}

/** The amount, in atoms, of `quantity` units under `tiers`: the sum of `tierBreakdown`'s parts. */
export function tieredAmount(tiers: readonly Tier[], mode: TiersMode, quantity: number): bigint {
  return tierBreakdown(tiers, mode, quantity).reduce((sum, part) => sum + part.amountAtom, 0n);
}

/** Why `tiers` cannot price (ascending `up_to`, exactly the last one null), or null when they can. */
export function tiersProblem(tiers: readonly Tier[]): string | null {
  if (tiers.length === 0) return "Give at least one tier.";
  for (let i = 0; i < tiers.length; i++) {
    const tier = tiers[i]!;
    const last = i === tiers.length - 1;
    if (last && tier.up_to !== null) return "The last tier's up_to must be null (no upper bound).";
    if (!last && tier.up_to === null) return "Only the last tier may have up_to null.";
    const previous = i > 0 ? tiers[i - 1]!.up_to : 0;
    if (!last && previous !== null && tier.up_to !== null && tier.up_to <= previous) return "up_to must increase from tier to tier (and be ≥ 1).";
  }
  return null;
}

/** A tier part's units as documents print them: "1–10", "11+" (the unbounded last tier), "5" (a tier of one unit). */
export function tierRangeText(part: Pick<TierPart, "from" | "to">): string {
  if (part.to === null) return `${part.from}+`;
  return part.from === part.to ? String(part.from) : `${part.from}–${part.to}`;
}
