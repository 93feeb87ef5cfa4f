import type { customers } from "@/db/schema";
import type { CustomerObject } from "./schema";

export type CustomerRow = typeof customers.$inferSelect;

/** The customer as the API shows it; `custom_fields` only when expanded (always in event data). */
export function serializeCustomer(
  row: CustomerRow,
  livemode: boolean,
  options: { customFields: boolean },
): CustomerObject {
  return {
    id: row.id,
    object: "customer",
    email: row.email,
    name: row.name,
    metadata: row.metadata,
    ...(options.customFields ? { custom_fields: row.customFields } : {}),
    livemode,
    created: row.created.toISOString(),
    updated: row.updated.toISOString(),
  };
}

/** The full entity state recorded in events. */
export function customerState(row: CustomerRow, livemode: boolean): Record<string, unknown> {
  return serializeCustomer(row, livemode, { customFields: true });
}
