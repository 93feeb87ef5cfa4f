import { z } from "zod";

export const LIMIT_DEFAULT = 50;
export const LIMIT_MAX = 100;

const integerParam = (name: string, min: number, max: number, fallback: number) =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be an integer from ${min} to ${max}.`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `${name} must be an integer from ${min} to ${max}.`)
        .max(max, `${name} must be an integer from ${min} to ${max}.`),
    )
    .optional()
    .transform((value) => value ?? fallback);

/** `limit` 1–100 (default 50) and `offset` ≥ 0 (default 0); anything else is a 400. */
export const PaginationQuery = z.strictObject({
  limit: integerParam("limit", 1, LIMIT_MAX, LIMIT_DEFAULT).meta({
    description: `Page size, 1 to ${LIMIT_MAX}. Default ${LIMIT_DEFAULT}.`,
  }),
  offset: integerParam("offset", 0, Number.MAX_SAFE_INTEGER, 0).meta({
    description: "Number of items skipped. Default 0.",
  }),
});

export type Page = z.output<typeof PaginationQuery>;

export type ListEnvelope<T> = { items: T[]; total: number; has_more: boolean };

export function envelope<T>(items: T[], total: number, page: Page): ListEnvelope<T> {
  return { items, total, has_more: page.offset + items.length < total };
}

/** The paginated list envelope of the spec, around an item schema (for validation and OpenAPI). */
export function listEnvelopeSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int().meta({ description: "Total matching items." }),
      has_more: z.boolean().meta({ description: "Whether more items follow." }),
    })
    .meta({ id });
}
