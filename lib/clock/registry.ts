import type { TimeTransition } from "./transitions";

/**
 * Every kind of time-driven transition, handed to the clock at start-up (lib/server/wiring.ts) rather
 * than imported: the transitions belong to the domains above the clock, and the clock runs them
 * without knowing them (as lib/clock/ticker.ts receives its sweep). Kept on globalThis because
 * Next.js bundles a module more than once per process, and the instrumentation's copy registers
 * for the routes' copies too.
 */
const TRANSITIONS = Symbol.for("billing.clock.transitions");
type GlobalWithTransitions = typeof globalThis & { [TRANSITIONS]?: readonly TimeTransition[] };

/** Sets the transitions, in the order they run when several fall due at one instant. */
export function registerTimeTransitions(transitions: readonly TimeTransition[]): void {
  (globalThis as GlobalWithTransitions)[TRANSITIONS] = transitions;
}

/** The registered transitions; a process that runs them without registering them is a bug, not "nothing due". */
export function timeTransitions(): readonly TimeTransition[] {
  const transitions = (globalThis as GlobalWithTransitions)[TRANSITIONS];
  if (!transitions) throw new Error("No time-driven transitions registered: the entry point must call wire() (lib/server/wiring.ts) first.");
  return transitions;
}
