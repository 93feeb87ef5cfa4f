import { and, eq, inArray } from "drizzle-orm";
import type { Executor } from "@/db/client";
import { prices, type ChangeStep } from "@/db/schema";
import { validationFailed } from "@/lib/errors";
import type { ChangeStepInputValue } from "./schema";

/* A change's steps as given (the create body, a preview's `changes`) → as stored and planned. */

export function storedStep(step: ChangeStepInputValue): ChangeStep {
  switch (step.type) {
    case "switch_price":
      return { type: step.type, item: step.item, price: step.price, quantity: null, state: "pending" };
    case "set_quantity":
      return { type: step.type, item: step.item, price: null, quantity: step.quantity, state: "pending" };
    case "add_item":
      return { type: step.type, item: null, price: step.price, quantity: step.quantity ?? 1, state: "pending" };
    case "remove_item":
      return { type: step.type, item: step.item, price: null, quantity: null, state: "pending" };
  }
}

/** An `add_item` of a metered price takes no quantity (its usage is billed): one given is a 422. */
export async function refuseMeteredQuantities(executor: Executor, accountId: string, steps: readonly ChangeStepInputValue[]): Promise<void> {
  const priced = steps.flatMap((step, index) => (step.type === "add_item" && step.quantity !== undefined ? [{ index, price: step.price }] : []));
  if (priced.length === 0) return;
  const rows = await executor
    .select({ id: prices.id, usageType: prices.usageType })
    .from(prices)
    .where(and(eq(prices.accountId, accountId), inArray(prices.id, priced.map((step) => step.price))));
  for (const { index, price } of priced) {
    if (rows.find((row) => row.id === price)?.usageType !== "metered") continue;
    const message = `Price '${price}' is metered: its item has no quantity (usage is billed).`;
    throw validationFailed([{ field: `steps.${index}.quantity`, message }], `steps.${index}.quantity: ${message}`);
  }
}
