import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, Metadata, MetadataPatch } from "@/lib/schemas";

const Name = z.string().min(1).max(256).meta({ example: "Pro plan" });
const Description = z.string().max(5000).nullable();
const Active = z.boolean().meta({ description: "False when archived: kept, but not sold anew." });

/** `true`/`false` in a query string; anything else is a 400. */
export const booleanParam = (name: string) =>
  z
    .enum(["true", "false"], { error: `${name} must be true or false.` })
    .transform((value) => value === "true")
    .optional();

export const ProductCreateInput = z
  .strictObject({
    name: Name,
    description: Description.optional(),
    active: Active.optional().meta({ description: "Default true." }),
    metadata: Metadata.optional(),
  })
  .meta({ id: "ProductCreateInput" });

export const ProductUpdateInput = z
  .strictObject({
    name: Name.optional(),
    description: Description.optional(),
    active: Active.optional().meta({ description: "Set false to archive the product, true to restore it." }),
    metadata: MetadataPatch.optional(),
  })
  .meta({ id: "ProductUpdateInput" });

export const Product = z
  .object({
    id: z.string().meta({ example: "prod_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("product"),
    name: z.string(),
    description: z.string().nullable(),
    active: z.boolean(),
    metadata: z.record(z.string(), z.string()),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Product" });

export const DeletedProduct = z
  .object({ id: z.string(), object: z.literal("product"), deleted: z.literal(true) })
  .meta({ id: "DeletedProduct" });

export const ProductList = listEnvelopeSchema(Product, "ProductList");

export const ProductListQuery = PaginationQuery.extend({
  active: booleanParam("active").meta({ description: "Only active (true) or only archived (false) products." }),
});

export type ProductObject = z.input<typeof Product>;
