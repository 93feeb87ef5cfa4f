import { z } from "zod";
import { isoExponent } from "./currencies";

/** ISO 8601 date-time strings, as every datetime of the API is sent. */
export const DateTime = z.iso.datetime().meta({ example: "2026-11-22T08:00:00.000Z" });

/**
 * A three-letter ISO 4217 code, accepted in any case and kept lowercase (the spec's `currency`): a
 * code of the project's table (lib/currencies.ts), so every amount's exponent is known; any other
 * three letters are a 422.
 */
export const Currency = z
  .string()
  .regex(/^[A-Za-z]{3}$/, "Must be a three-letter ISO 4217 currency code.")
  .refine((value) => !/^[A-Za-z]{3}$/.test(value) || isoExponent(value) !== null, {
    error: (issue) => `'${String(issue.input)}' is not an ISO 4217 currency code (usd, eur, jpy, …).`,
  })
  .transform((value) => value.toLowerCase())
  .meta({ description: "Three-letter ISO 4217 code; stored and returned lowercase.", example: "usd" });

/** Free-form key/value pairs for the merchant's own use (as Stripe's `metadata`). */
export const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= 50, "At most 50 keys.")
  .meta({ id: "Metadata", description: "Up to 50 string keys (≤ 40 characters) with string values (≤ 500)." });

/** For updates: a key set to null is removed, other keys are set, absent keys are kept. */
export const MetadataPatch = z
  .record(z.string().min(1).max(40), z.string().max(500).nullable())
  .refine((value) => Object.keys(value).length <= 50, "At most 50 keys.")
  .meta({ description: "Keys to set; a key set to null is removed." });

/** Applies a MetadataPatch. */
export function patchRecord(
  current: Record<string, string>,
  patch: Record<string, string | null> | undefined,
): Record<string, string> {
  if (!patch) return current;
  const next = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete next[key];
    else next[key] = value;
  }
  return next;
}

/** `expand` as a comma-separated list of the expansions an operation offers. */
export function expandQuery<const T extends string>(...available: [T, ...T[]]) {
  return z
    .string()
    .transform((value) => value.split(",").map((part) => part.trim()).filter(Boolean))
    .pipe(z.array(z.enum(available, { error: `expand may contain: ${available.join(", ")}.` })))
    .optional()
    .transform((value) => new Set<T>(value ?? []))
    .meta({ description: `Comma-separated expansions: ${available.join(", ")}.` });
}
