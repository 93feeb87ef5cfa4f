import { decryptSecret } from "./secrets";
import type { SigningSecrets } from "./signing";

/** An endpoint's secrets as stored: ciphertexts, and when the previous one stops signing. */
export type StoredSecrets = { current: string; previous: string | null; previousExpiresAt: Date | null };

/** What signs an attempt made at `now`: the current secret, and the previous one until it expires. */
export function signingSecrets(stored: StoredSecrets, now: Date): SigningSecrets {
  const previousValid = stored.previous !== null && stored.previousExpiresAt !== null && stored.previousExpiresAt > now;
  return { current: decryptSecret(stored.current), previous: previousValid ? decryptSecret(stored.previous!) : null };
}
