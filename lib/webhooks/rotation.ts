import { decryptSecret } from "@/lib/secrets";
import type { SigningSecrets } from "./signing";

/** An endpoint's secrets as stored: ciphertexts, and when the previous one stops signing. */
export type StoredSecrets = { current: string; previous: string | null; previousExpiresAt: Date | null };

/** Whether an attempt made at `now` is signed with the previous secret too (a rotation's overlap). */
export function previousSecretValid(stored: Omit<StoredSecrets, "current">, now: Date): boolean {
  return stored.previous !== null && stored.previousExpiresAt !== null && stored.previousExpiresAt > now;
}

/** What signs an attempt made at `now`: the current secret, and the previous one until it expires. */
export function signingSecrets(stored: StoredSecrets, now: Date): SigningSecrets {
  return { current: decryptSecret(stored.current), previous: previousSecretValid(stored, now) ? decryptSecret(stored.previous!) : null };
}
