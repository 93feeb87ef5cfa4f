// Pure (no server imports): the invoice lines, the API's previews and the unit tests read it.

/** One tier: `up_to` units (inclusive; null: no bound, the last tier), a unit amount and a flat fee. */
export type Tier = { up_to: number | null; unit_amount_atom: number; flat_amount_atom?: number };

export type TiersMode = "graduated" | "volume";

/**
 * The amount, in atoms, of `quantity` units under `tiers` (sorted by `up_to`, the last one
 * unbounded), as Stripe computes it:
 *
 * - graduated: each tier prices the units that fall within it (units `prev_up_to + 1 … up_to`),
 *   plus its flat fee when at least one unit falls within it;
 * - volume: the tier the whole quantity falls in prices every unit, plus its flat fee.
 *
 * A quantity of 0 costs nothing under graduated tiers and the first tier's flat fee under volume
 * tiers (Stripe's rule). Integer arithmetic only; `bigint` so no product overflows.
 */
export function tieredAmount(tiers: readonly Tier[], mode: TiersMode, quantity: number): bigint {
  if (!Number.isSafeInteger(quantity) || quantity < 0) throw new RangeError(`quantity must be a non-negative integer, not ${quantity}`);
  const units = BigInt(quantity);
  if (mode === "volume") {
    const tier = tiers.find((t) => t.up_to === null || quantity <= t.up_to) ?? tiers[tiers.length - 1]!;
    return units * BigInt(tier.unit_amount_atom) + BigInt(tier.flat_amount_atom ?? 0);
  }
  let total = 0n;
  let below = 0n;
  for (const tier of tiers) {
    if (units <= below) break;
    const top = tier.up_to === null ? units : BigInt(Math.min(tier.up_to, quantity));
    const inTier = top - below;
    if (inTier > 0n) total += inTier * BigInt(tier.unit_amount_atom) + BigInt(tier.flat_amount_atom ?? 0);
    below = top;
  }
  return total;
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
