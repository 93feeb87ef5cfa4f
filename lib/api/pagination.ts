import { z } from "zod";
import { DateTime } from "@/lib/schemas";

export const LIMIT_DEFAULT = 50;
export const LIMIT_MAX = 100;
/**
 * The deepest `offset` a list accepts. Skipping costs one index entry per skipped row, so an
 * unbounded offset would make deep pages grow with the account; cursors (`starting_after`) cost
 * the same at any depth. See docs/rules/api.md, "Pagination".
 */
export const OFFSET_MAX = 10_000;

const integerParam = (name: string, min: number, max: number, fallback: number, hint = "") =>
  z
    .string()
    .regex(/^\d+$/, `${name} must be an integer from ${min} to ${max}.${hint}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(min, `${name} must be an integer from ${min} to ${max}.${hint}`)
        .max(max, `${name} must be an integer from ${min} to ${max}.${hint}`),
    )
    .optional()
    .transform((value) => value ?? fallback)
    // A query string carries text, but the document says what it must hold: typed clients send numbers.
    .meta({
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        delete jsonSchema.pattern;
        Object.assign(jsonSchema, { type: "integer", minimum: min, maximum: max, default: fallback });
      },
    });

const cursorParam = (description: string) =>
  z
    .string()
    .regex(/^[a-z]+_[A-Za-z0-9_]{1,120}$/, "Must be the id of an item of this list.")
    .optional()
    .meta({ description });

const timeParam = (description: string) =>
  DateTime.transform((value) => new Date(value)).optional().meta({ description });

/**
 * `limit` 1–100 (default 50), `offset` 0–10,000 (default 0), the cursors `starting_after` /
 * `ending_before` (an item id, as Stripe's) and the `created[gte]` / `created[lt]` range.
 * Anything else is a 400. Every list of the API extends this and pages through db/page.ts.
 */
export const PaginationQuery = z.strictObject({
  limit: integerParam("limit", 1, LIMIT_MAX, LIMIT_DEFAULT).meta({
    description: `Page size, 1 to ${LIMIT_MAX}. Default ${LIMIT_DEFAULT}.`,
  }),
  offset: integerParam(
    "offset",
    0,
    OFFSET_MAX,
    0,
    " For deeper pages pass the last item's id as starting_after.",
  ).meta({
    description: `Number of items skipped, 0 to ${OFFSET_MAX.toLocaleString("en")}. Default 0. Beyond that, page with \`starting_after\`, which costs the same at any depth.`,
  }),
  starting_after: cursorParam(
    "Cursor: an item id from a previous page. Returns the items that follow it in the list's order (older ones). Costs the same at any depth.",
  ),
  ending_before: cursorParam(
    "Cursor: an item id from a previous page. Returns the items just before it in the list's order (newer ones), still newest first; `has_more` then tells whether even newer items exist.",
  ),
  "created[gte]": timeParam("Only items created at or after this time (ISO 8601)."),
  "created[lt]": timeParam("Only items created before this time (ISO 8601)."),
});

export type Page = z.output<typeof PaginationQuery> & {
  /**
   * Not a query parameter: a batch of an export (lib/api/export.ts). It needs no `total`, which
   * the list then does not count (the answer's `total` is -1), and its `starting_after` is the
   * previous batch's last item, taken as the keyset even if it left the list meanwhile (deleted,
   * or changed out of a status filter).
   */
  exportBatch?: true;
};

export type ListEnvelope<T> = { items: T[]; total: number; has_more: boolean };

/** What db/page.ts pageOf answers besides the rows. */
export type PageInfo = { total: number; hasMore: boolean };

export function envelope<T>(items: T[], info: PageInfo): ListEnvelope<T> {
  return { items, total: info.total, has_more: info.hasMore };
}

/** The paginated list envelope of the spec, around an item schema (for validation and OpenAPI). */
export function listEnvelopeSchema<T extends z.ZodType>(item: T, id: string) {
  return z
    .object({
      items: z.array(item),
      total: z.number().int().meta({
        description: "Total items matching the filters (including `created[…]`), regardless of cursor or offset. Exact.",
      }),
      has_more: z.boolean().meta({
        description: "Whether more items follow in the paging direction (after this page; with `ending_before`, before it).",
      }),
    })
    .meta({ id });
}
