import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { config } from "@/lib/config";
import { secretFromEnvOrLocal } from "@/lib/keys";

/* Secrets stored at rest (webhook signing secrets, payment processor keys), below every domain that keeps one. */

/**
 * A new endpoint signing secret in the Standard Webhooks format: `whsec_` + standard base64 of 32
 * random bytes. Standard Webhooks verifiers key their HMAC with those bytes; the spec's
 * `X-Webhook-Signature` is keyed with the whole string.
 */
export function generateSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

let cachedKey: Buffer | undefined;

/**
 * The key that encrypts signing secrets at rest: derived from WEBHOOK_SECRET_KEY. Outside
 * production without it (the embedded default, local development) a key is generated once and
 * kept in the data directory; production refuses to run without one.
 */
function encryptionKey(): Buffer {
  if (cachedKey) return cachedKey;
  const material = secretFromEnvOrLocal("WEBHOOK_SECRET_KEY", config().webhooks.secretKey);
  cachedKey = Buffer.from(hkdfSync("sha256", material, "", "webhook-signing-secrets", 32));
  return cachedKey;
}

/** AES-256-GCM: `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
export function encryptSecret(secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", encryptionKey(), iv);
  const ciphertext = Buffer.concat([cipher.update(secret, "utf8"), cipher.final()]);
  return ["v1", iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === "string" ? part : part.toString("base64url"))).join(".");
}

export function decryptSecret(stored: string): string {
  const [version, iv, tag, ciphertext] = stored.split(".");
  if (version !== "v1" || !iv || !tag || !ciphertext) throw new Error("Unknown signing secret format.");
  const decipher = createDecipheriv("aes-256-gcm", encryptionKey(), Buffer.from(iv, "base64url"));
  decipher.setAuthTag(Buffer.from(tag, "base64url"));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, "base64url")), decipher.final()]).toString("utf8");
}
