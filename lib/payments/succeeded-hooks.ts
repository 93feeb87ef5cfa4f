import type { ServiceContext } from "@/lib/context";
import type { ChangeTransaction } from "@/lib/events/transaction";
import type { PaymentIntentRow } from "./serialize";

/**
 * What else an intent's success does when a processor reports it (the webhook, the return URL's
 * retrieve, the reconciliation job): a checkout session paid in the browser completes
 * (lib/checkout/on-session.ts). Handed in at start-up (lib/server/wiring.ts), as the invoice's
 * outcome is (./invoice-outcome.ts): checkout collects through payments, so payments do not import
 * checkout. Run in the intent's transaction, once: only the change that makes the intent succeed
 * calls it. Kept on globalThis because Next.js bundles a module more than once per process.
 */
export type IntentSucceeded = (tx: ChangeTransaction, ctx: ServiceContext, intent: PaymentIntentRow) => Promise<void>;

const HOOKS = Symbol.for("billing.payments.intent-succeeded");
type GlobalWithHooks = typeof globalThis & { [HOOKS]?: Map<string, IntentSucceeded> };

function hooks(): Map<string, IntentSucceeded> {
  return ((globalThis as GlobalWithHooks)[HOOKS] ??= new Map());
}

/** Registers (or replaces: wiring again is harmless) the hook of one domain. */
export function registerIntentSucceeded(name: string, hook: IntentSucceeded): void {
  hooks().set(name, hook);
}

export async function notifyIntentSucceeded(tx: ChangeTransaction, ctx: ServiceContext, before: PaymentIntentRow, after: PaymentIntentRow): Promise<void> {
  if (after.status !== "succeeded" || before.status === "succeeded") return;
  for (const hook of hooks().values()) await hook(tx, ctx, after);
}
