// Copy this into your receiver. The test suite's HTTPS receiver uses this very function, so the
// example is exercised against real deliveries.
import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * True when `signatureHeader` (the X-Webhook-Signature header) is the HMAC-SHA256 of exactly
 * `rawBody`, keyed with your endpoint's signing secret (the whole `whsec_…` string).
 * Pass the raw request bytes, never a re-serialized parsed body.
 */
export function verifyWebhookSignature(
  rawBody: Buffer | string,
  signatureHeader: string | null | undefined,
  secret: string,
): boolean {
  if (!signatureHeader || !signatureHeader.startsWith("sha256=")) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(rawBody).digest("hex"));
  const given = Buffer.from(signatureHeader.slice("sha256=".length));
  // Constant-time comparison; lengths must match first or timingSafeEqual throws.
  return given.length === expected.length && timingSafeEqual(given, expected);
}
