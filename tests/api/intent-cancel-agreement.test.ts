import { beforeAll, describe, expect, it } from "vitest";
import { inject } from "vitest";
import { PAYMENT_INTENT_STATUSES, canCancelIntent, type IntentStatus } from "@/lib/payments/statuses";
import { createCall, type Call, type CallInput } from "@/packages/sdk/src/call";
import { newMerchant } from "../helpers/merchant";

/*
 * The dashboard shows "Cancel payment intent" exactly for the statuses canCancelIntent accepts
 * (components/objects/object-actions.tsx reads lib/payments/statuses.ts), and the API's cancel
 * reads the same function. This proves the API side over real HTTP: for every status an intent can
 * rest in, cancel succeeds if and only if the declaration says so.
 */

type IntentBody = CallInput<"createPaymentIntentForTokenAccount">["body"];

// How to bring a new intent to each status it can rest in (`processing` is transient in the sandbox).
const SETUP: Record<Exclude<IntentStatus, "processing">, { create: Partial<IntentBody>; cancelFirst?: true }> = {
  requires_payment_method: { create: {} },
  requires_confirmation: { create: { payment_method: "pm_sandbox_succeeds" } },
  requires_action: { create: { payment_method: "pm_sandbox_requires_action", confirm: true } },
  requires_capture: { create: { payment_method: "pm_sandbox_succeeds", capture_method: "manual", confirm: true } },
  partially_funded: { create: { payment_method: "pm_sandbox_partially_funded", confirm: true } },
  succeeded: { create: { payment_method: "pm_sandbox_succeeds", confirm: true } },
  canceled: { create: {}, cancelFirst: true },
};

let call: Call;

beforeAll(async () => {
  const merchant = await newMerchant();
  call = createCall({ baseUrl: `${inject("apiBaseUrl")}/api`, headers: { Authorization: `Bearer ${merchant.sandboxSecret.token}` } });
});

describe("which payment intents can be canceled: the declaration and the API agree", () => {
  it("covers every status but the transient one", () => {
    expect(PAYMENT_INTENT_STATUSES.filter((status) => !(status in SETUP))).toEqual(["processing"]);
    // The drift this replaces: the dashboard once hid Cancel for partially_funded intents.
    expect(canCancelIntent("partially_funded")).toBe(true);
  });

  it.each(Object.entries(SETUP))("%s: cancel is accepted exactly when canCancelIntent says so", async (status, setup) => {
    const created = await call("createPaymentIntentForTokenAccount", { body: { amount_atom: 1001, currency: "usd", ...setup.create } });
    expect(created.ok, JSON.stringify(created.ok ? created.data : created.problem)).toBe(true);
    if (!created.ok) return;
    const path = { payment_intent_id: created.data.id };
    if (setup.cancelFirst) expect((await call("cancelPaymentIntentForTokenAccount", { path, body: {} })).ok).toBe(true);
    const before = await call("getPaymentIntentForTokenAccount", { path });
    expect(before.ok && before.data.status).toBe(status);

    const cancel = await call("cancelPaymentIntentForTokenAccount", { path, body: {} });
    expect(cancel.ok).toBe(canCancelIntent(status));
    if (!cancel.ok) expect(cancel.status).toBe(409);
  });
});
