// Type-only imports: the lib schemas are zod (server-safe but heavy); only their shapes are needed.
import type { z } from "zod";
import type { Invoice as InvoiceSchema, InvoiceLine as InvoiceLineSchema, InvoiceStatus } from "@/lib/invoices/schema";

/** An invoice as sent over the wire. */
export type Invoice = z.output<typeof InvoiceSchema>;
export type InvoiceLine = z.output<typeof InvoiceLineSchema>;
export type { InvoiceStatus };
