import { eq } from "drizzle-orm";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { invoiceLines } from "@/db/schema";
import type { ServiceContext } from "@/lib/context";
import { CustomerCreateInput } from "@/lib/customers/schema";
import { createCustomer } from "@/lib/customers/service";
import { ServiceError } from "@/lib/errors";
import { InvoiceCreateInput } from "@/lib/invoices/schema";
import { createInvoice } from "@/lib/invoices/service";
import { createOrganization } from "@/lib/organizations/service";
import { PriceCreateInput, PriceUpdateInput } from "@/lib/prices/schema";
import { serializePrice } from "@/lib/prices/serialize";
import { createPrice, getPrice, updatePrice } from "@/lib/prices/service";
import { ProductCreateInput } from "@/lib/products/schema";
import { createProduct } from "@/lib/products/service";
import { costOf, priceIn, type ModelMultiPrice, type ModelPrice, type ModelTier } from "../helpers/billing-model";

/*
 * Adding currencies to a price (docs/billing.md, "Adding a currency later"), against the money
 * model of tests/helpers/billing-model.ts: random prices (per unit, graduated, volume) in a random
 * own currency with random options, then random steps of
 *   - `add`: currencies added by `POST /prices/{id}` (the verb `updatePrice`), now and then naming
 *     the price's own currency, one it bills in already, or tiers of other bounds: the model
 *     refuses exactly those (422), and a refused add changes nothing;
 *   - `bill`: a one-off invoice of `quantity` units in a currency: the model's cost of the price's
 *     terms in that currency, or a 422 exactly when the model has none.
 * After every step the price's `currency_options` are the model's. A currency's amounts never
 * change once set, so an invoice billed before an add and one billed after agree.
 * `PROPERTY_SEQUENCES=<n>` sets how many (default 150).
 */

const SEQUENCES = Number(process.env.PROPERTY_SEQUENCES ?? 150);
const SEED = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);
const CODES = ["usd", "eur", "jpy", "bhd", "gbp", "chf"] as const;
const BOUNDS = [5, 10] as const;

const arbAmounts = fc.tuple(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 500 }));
const arbScheme = fc.constantFrom("per_unit" as const, "graduated" as const, "volume" as const);
/** One currency's terms as drawn: amounts, and whether its tiers (if any) keep the price's bounds. */
const arbOption = fc.record({ code: fc.constantFrom(...CODES), amounts: arbAmounts, otherBounds: fc.nat({ max: 5 }).map((n) => n === 0) });
const arbStep = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant("add" as const), options: fc.uniqueArray(arbOption, { selector: (option) => option.code, minLength: 1, maxLength: 3 }) }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("bill" as const), code: fc.constantFrom(...CODES), quantity: fc.integer({ min: 1, max: 14 }) }) },
);
const arbSequence = fc.record({
  scheme: arbScheme,
  own: fc.record({ code: fc.constantFrom(...CODES), amounts: arbAmounts }),
  options: fc.uniqueArray(arbOption, { selector: (option) => option.code, maxLength: 2 }),
  steps: fc.array(arbStep, { minLength: 1, maxLength: 6 }),
});
type Drawn = { amounts: readonly [number, number, number, number]; otherBounds: boolean };

/** The model's terms of one currency. */
function modelTerms(scheme: "per_unit" | "graduated" | "volume", [a, b, c, flat]: Drawn["amounts"], bounds: readonly number[]): ModelPrice {
  if (scheme === "per_unit") return { scheme, unit: a };
  const tiers: ModelTier[] = [{ upTo: bounds[0]!, unit: a, flat }, { upTo: bounds[1]!, unit: b, flat: 0 }, { upTo: null, unit: c, flat: 0 }];
  return { scheme, tiers };
}

/** The API's terms of one currency, as `currency_options.<code>` or the price's top level take them. */
function apiTerms(terms: ModelPrice): { unit_amount_atom: number } | { tiers: { up_to: number | null; unit_amount_atom: number; flat_amount_atom: number }[] } {
  return terms.scheme === "per_unit" ? { unit_amount_atom: terms.unit } : { tiers: terms.tiers.map((tier) => ({ up_to: tier.upTo, unit_amount_atom: tier.unit, flat_amount_atom: tier.flat })) };
}

/** The price object's `currency_options` the model expects: every currency, its own included. */
function expectedOptions(model: ModelMultiPrice): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(model.in).map(([code, terms]) => [
      code,
      terms.scheme === "per_unit"
        ? { unit_amount_atom: terms.unit, tiers: null, tax_behavior: "unspecified" }
        : { unit_amount_atom: 0, tiers: terms.tiers.map((tier) => ({ up_to: tier.upTo, unit_amount_atom: tier.unit, flat_amount_atom: tier.flat })), tax_behavior: "unspecified" },
    ]),
  );
}

type Outcome<T> = { ok: true; value: T } | { ok: false; refusal: string };
async function outcome<T>(run: () => Promise<T>): Promise<Outcome<T>> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ServiceError && error.category === "validation") return { ok: false, refusal: error.message };
    throw error;
  }
}

const tally = { added: 0, refusedAdds: 0, billed: 0, refusedBills: 0, billedAdded: 0 };

describe("adding currencies to a price, against the money model", () => {
  let ctx: ServiceContext;
  let product: string;

  beforeAll(async () => {
    const { sandboxAccountId: accountId } = await createOrganization(await getDb(), { name: "Price currencies" });
    ctx = { accountId, livemode: false, actor: { type: "system", id: null }, correlationId: null, now: () => new Date() };
    product = (await createProduct({ ctx, input: ProductCreateInput.parse({ name: "Plan" }) })).id;
  });

  it(`${SEQUENCES} sequences: adds refused exactly where the model refuses, every bill the model's cost in its currency`, async () => {
    const db = await getDb();
    await fc.assert(
      fc.asyncProperty(arbSequence, async (sequence) => {
        const own = modelTerms(sequence.scheme, sequence.own.amounts, BOUNDS);
        const initial = Object.fromEntries(
          sequence.options.filter((option) => option.code !== sequence.own.code).map((option) => [option.code, modelTerms(sequence.scheme, option.amounts, BOUNDS)]),
        );
        const model: { currency: string; in: Record<string, ModelPrice> } = { currency: sequence.own.code, in: { [sequence.own.code]: own, ...initial } };
        const ownApi = apiTerms(own);
        const price = await createPrice({
          ctx,
          input: PriceCreateInput.parse({
            product,
            currency: sequence.own.code,
            type: "one_time",
            ...("tiers" in ownApi ? { billing_scheme: "tiered", tiers_mode: sequence.scheme, tiers: ownApi.tiers } : ownApi),
            ...(Object.keys(initial).length === 0 ? {} : { currency_options: Object.fromEntries(Object.entries(initial).map(([code, terms]) => [code, apiTerms(terms)])) }),
          }),
        });
        /** What each currency billed first: the same quantity billed again later costs the same. */
        const billedBefore = new Map<string, number>();
        for (const step of sequence.steps) {
          if (step.kind === "add") {
            // The model's rule: refused when a currency is the price's own or one it bills in, or its tiers have other bounds.
            const refused =
              step.options.some((option) => Object.hasOwn(model.in, option.code)) ||
              (sequence.scheme !== "per_unit" && step.options.some((option) => option.otherBounds));
            const body = Object.fromEntries(
              step.options.map((option) => [option.code, apiTerms(modelTerms(sequence.scheme, option.amounts, option.otherBounds ? [3, 10] : BOUNDS))]),
            );
            const before = serializePrice(await getPrice({ ctx, input: { id: price.id } }), false);
            const result = await outcome(() => updatePrice({ ctx, input: { id: price.id, changes: PriceUpdateInput.parse({ currency_options: body }) } }));
            expect(result.ok, result.ok ? "added" : result.refusal).toBe(!refused);
            if (result.ok) {
              tally.added++;
              for (const option of step.options) model.in[option.code] = modelTerms(sequence.scheme, option.amounts, BOUNDS);
            } else {
              tally.refusedAdds++;
              expect(serializePrice(await getPrice({ ctx, input: { id: price.id } }), false)).toEqual(before);
            }
          } else {
            const terms = priceIn(model, step.code);
            const customer = (await createCustomer({ ctx, input: CustomerCreateInput.parse({ email: "currencies@example.com", currency: step.code }) })).id;
            const result = await outcome(() => createInvoice({ ctx, input: InvoiceCreateInput.parse({ customer, currency: step.code, lines: [{ price: price.id, quantity: step.quantity }] }) }));
            expect(result.ok, result.ok ? "billed" : result.refusal).toBe(terms !== null);
            if (!result.ok) {
              tally.refusedBills++;
              expect(result.refusal).toContain(step.code);
              continue;
            }
            tally.billed++;
            if (!Object.hasOwn(initial, step.code) && step.code !== sequence.own.code) tally.billedAdded++;
            const [line] = await db.select({ amount: invoiceLines.amountAtom }).from(invoiceLines).where(eq(invoiceLines.invoiceId, result.value.invoice.id));
            expect(line!.amount).toBe(costOf(terms!, step.quantity));
            const key = `${step.code}×${step.quantity}`;
            if (billedBefore.has(key)) expect(line!.amount).toBe(billedBefore.get(key));
            billedBefore.set(key, line!.amount);
          }
          expect(serializePrice(await getPrice({ ctx, input: { id: price.id } }), false).currency_options).toEqual(expectedOptions(model));
        }
      }),
      { numRuns: SEQUENCES, seed: SEED },
    );
    console.log(`price currencies property: ${SEQUENCES} sequences, ${JSON.stringify(tally)} (seed ${SEED})`);
    // The generators reach every outcome: a run that stopped drawing one would pass vacuously.
    expect(tally.added).toBeGreaterThan(0);
    expect(tally.refusedAdds).toBeGreaterThan(0);
    expect(tally.billedAdded).toBeGreaterThan(0);
    expect(tally.refusedBills).toBeGreaterThan(0);
  }, 600_000);
});
