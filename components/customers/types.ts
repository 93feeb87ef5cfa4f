// Type-only imports: the lib schemas are zod (server-safe but heavy); only their shapes are needed.
import type { z } from "zod";
import type { Customer as CustomerSchema } from "@/lib/customers/schema";

/** A customer as sent over the wire (`custom_fields` only with `expand=custom_fields`). */
export type Customer = z.output<typeof CustomerSchema>;
