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

/**
 * What the processor's word does after it was applied, outside any transaction (the webhook's job
 * and the return URL call it once the intent or the setup is settled): a subscription checkout
 * paid in the browser starts its subscription (lib/checkout/on-session.ts), which takes several
 * committed steps and so cannot run in the intent's transaction. Handed in at start-up as the
 * success hooks are. Each hook must be idempotent: the webhook and the return both call it.
 */
export type ProcessorSettled =
  | { kind: "payment_intent"; intent: PaymentIntentRow }
  /** A setup that succeeded: the method recorded as our `pm_…` for the customer. */
  | { kind: "setup"; reference: string; paymentMethodId: string; customerId: string };
export type AfterProcessorSettled = (ctx: ServiceContext, settled: ProcessorSettled) => Promise<void>;

const AFTER = Symbol.for("billing.payments.after-processor-settled");
type GlobalWithAfter = typeof globalThis & { [AFTER]?: Map<string, AfterProcessorSettled> };

function afterHooks(): Map<string, AfterProcessorSettled> {
  return ((globalThis as GlobalWithAfter)[AFTER] ??= new Map());
}

/** Registers (or replaces) the after-settlement hook of one domain. */
export function registerAfterProcessorSettled(name: string, hook: AfterProcessorSettled): void {
  afterHooks().set(name, hook);
}

export async function notifyProcessorSettled(ctx: ServiceContext, settled: ProcessorSettled): Promise<void> {
  for (const hook of afterHooks().values()) await hook(ctx, settled);
}
