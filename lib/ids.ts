import { randomBytes } from "node:crypto";
import { base32crockford } from "@scure/base";
import { config } from "./config";
import { ID_PREFIXES, type IdKind } from "./id-prefixes";

export { ID_PREFIXES, type IdKind };

const TIME_BYTES = 6; // 48-bit millisecond timestamp: sortable until the year 10889
const RANDOM_BYTES = 12; // 96 random bits
/** Length of the encoded suffix: 18 bytes in Crockford base32. */
export const ID_SUFFIX_LENGTH = Math.ceil(((TIME_BYTES + RANDOM_BYTES) * 8) / 5);

let lastMillis = -1;
let lastRandom = Buffer.alloc(RANDOM_BYTES);

/** Adds one to a big-endian byte string; returns false on overflow. */
function increment(bytes: Buffer): boolean {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const value = bytes[i]!;
    if (value < 0xff) {
      bytes[i] = value + 1;
      return true;
    }
    bytes[i] = 0;
  }
  return false;
}

/**
 * A time-ordered suffix: 48 bits of milliseconds, then 96 random bits. Within one millisecond in
 * one process the random part is incremented (as ULID's monotonic mode does), so identifiers made
 * one after the other always sort in creation order.
 */
export function newIdSuffix(now: number = Date.now()): string {
  let millis = Math.max(now, lastMillis);
  if (millis === lastMillis) {
    if (!increment(lastRandom)) {
      millis += 1;
      lastRandom = randomBytes(RANDOM_BYTES);
    }
  } else {
    lastRandom = randomBytes(RANDOM_BYTES);
  }
  lastMillis = millis;
  const bytes = Buffer.alloc(TIME_BYTES + RANDOM_BYTES);
  bytes.writeUIntBE(millis, 0, TIME_BYTES);
  lastRandom.copy(bytes, TIME_BYTES);
  return base32crockford.encode(bytes).toLowerCase();
}

/** `<prefix><environment>_<suffix>`, for example `cus_prod_01jd…`. */
export function newId(kind: IdKind): string {
  return `${ID_PREFIXES[kind]}${config().environment}_${newIdSuffix()}`;
}

const SUFFIX_PATTERN = `[0-9a-hjkmnp-tv-z]{${ID_SUFFIX_LENGTH}}`;

/** Whether a string has the shape of an identifier of this kind in this deployment's environment. */
export function isId(kind: IdKind, value: string): boolean {
  return new RegExp(`^${ID_PREFIXES[kind]}${config().environment}_${SUFFIX_PATTERN}$`).test(value);
}
