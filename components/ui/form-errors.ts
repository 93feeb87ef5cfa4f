import { ApiError } from "@/components/api-client";

/**
 * Splits a failed request into messages for the form's own fields (shown inline) and whatever is
 * left (shown in an ErrorBox), so a field error is never shown twice and nothing is swallowed.
 */
export function splitFormError<F extends string>(
  error: unknown,
  fields: readonly F[],
): { fields: Partial<Record<F, string>>; other: unknown } {
  if (!error) return { fields: {}, other: null };
  if (!(error instanceof ApiError)) return { fields: {}, other: error };
  const inline: Partial<Record<F, string>> = {};
  for (const field of fields) {
    const message = error.fieldError(field);
    if (message) inline[field] = message;
  }
  const unmatched = (error.problem.errors ?? []).some((e) => !(fields as readonly string[]).includes(e.field));
  const matchedAny = Object.keys(inline).length > 0;
  return { fields: inline, other: matchedAny && !unmatched ? null : error };
}
