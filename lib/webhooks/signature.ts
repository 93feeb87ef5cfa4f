import { createHmac } from "node:crypto";

/** `sha256=` + lowercase hex HMAC-SHA256 of exactly the bytes sent, keyed with the signing secret. */
export function signPayload(secret: string, body: Buffer | string): string {
  return `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;
}
