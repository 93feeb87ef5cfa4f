import { z } from "zod";
import { listEnvelopeSchema, PaginationQuery } from "@/lib/api/pagination";
import { DateTime, expandQuery, Metadata, MetadataPatch } from "@/lib/schemas";

export const CustomFields = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((value) => Object.keys(value).length <= 50, "At most 50 custom fields.")
  .meta({ id: "CustomFields", description: "Custom field values by field key." });

const Email = z.email().max(254).meta({ example: "jenny@example.com" });
const Name = z.string().min(1).max(256).nullable();

export const CustomerCreateInput = z
  .strictObject({
    email: Email,
    name: Name.optional(),
    custom_fields: CustomFields.optional(),
    metadata: Metadata.optional(),
  })
  .meta({ id: "CustomerCreateInput" });

export const CustomerUpdateInput = z
  .strictObject({
    email: Email.optional(),
    name: Name.optional(),
    custom_fields: MetadataPatch.optional().meta({ description: "Custom fields to set; null removes one." }),
    metadata: MetadataPatch.optional(),
  })
  .meta({ id: "CustomerUpdateInput" });

export const Customer = z
  .object({
    id: z.string().meta({ example: "cus_prod_01kaxz4c7e5r3x3m9k2w8q4tgd5" }),
    object: z.literal("customer"),
    email: z.string(),
    name: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    custom_fields: CustomFields.optional().meta({ description: "Present with expand=custom_fields." }),
    livemode: z.boolean(),
    created: DateTime,
    updated: DateTime,
  })
  .meta({ id: "Customer" });

export const DeletedCustomer = z
  .object({ id: z.string(), object: z.literal("customer"), deleted: z.literal(true) })
  .meta({ id: "DeletedCustomer" });

export const CustomerList = listEnvelopeSchema(Customer, "CustomerList");

export const CustomerExpandQuery = z.strictObject({ expand: expandQuery("custom_fields") });
export const CustomerListQuery = PaginationQuery.extend({
  expand: expandQuery("custom_fields"),
  q: z
    .string()
    .trim()
    .min(1, { error: "q must not be empty." })
    .max(200, { error: "q has at most 200 characters." })
    .optional()
    .meta({
      description:
        "Only customers whose email or name contains this text (case-insensitive), e.g. `lovelace` or `@example`; prefix matches come first. A term of 1 or 2 characters matches the start of the email or name only.",
    }),
});

export type CustomerObject = z.input<typeof Customer>;
