import type { Permissions } from "@/lib/permissions";
import type { ServiceContext, TokenKind } from "@/lib/context";

/**
 * Whether the caller may mint a token of a kind (lib/server/token-minting.ts `assertMayMint`),
 * handed in at start-up (lib/server/wiring.ts): the answer reads every operation of the API, and
 * the operations list sits above every domain, this one included. Kept on globalThis because
 * Next.js bundles a module more than once per process.
 */
type MintCheck = (ctx: ServiceContext, kind: TokenKind, permissions: Permissions | null) => void;

const CHECK = Symbol.for("billing.api-tokens.mint-check");
type GlobalWithCheck = typeof globalThis & { [CHECK]?: MintCheck };

export function registerMintCheck(check: MintCheck): void {
  (globalThis as GlobalWithCheck)[CHECK] = check;
}

/** Throws the check's refusal; with no check registered it refuses everything rather than mint unchecked. */
export function checkMayMint(ctx: ServiceContext, kind: TokenKind, permissions: Permissions | null = null): void {
  const check = (globalThis as GlobalWithCheck)[CHECK];
  if (!check) throw new Error("No token-minting check registered: the entry point must call wire() (lib/server/wiring.ts) first.");
  check(ctx, kind, permissions);
}
