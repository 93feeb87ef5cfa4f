import { describe, expectTypeOf, it } from "vitest";
import type { Transaction } from "@/db/client";
import { emitEvent } from "@/lib/events/emit";
import type { ChangeTransaction } from "@/lib/events/transaction";

// Checked by `npm run typecheck` (tsc covers tests/): the brand is what keeps an event out of a
// plain db.transaction, where its deliveries would never be handed off after the commit.
describe("the change transaction", () => {
  it("is required by emitEvent and cannot be made from a plain transaction", () => {
    expectTypeOf<Parameters<typeof emitEvent>[0]>().toEqualTypeOf<ChangeTransaction>();
    expectTypeOf<Transaction>().not.toExtend<ChangeTransaction>();
    expectTypeOf<ChangeTransaction>().toExtend<Transaction>();
    const plain = {} as Transaction;
    // @ts-expect-error a plain transaction has no hand-off: emitEvent refuses it
    const refused: Parameters<typeof emitEvent>[0] = plain;
    void refused;
  });
});
