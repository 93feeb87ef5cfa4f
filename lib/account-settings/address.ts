import type { PostalAddress } from "@/db/schema";

/**
 * An address in one key order, line2 null when absent: jsonb reorders keys, so answers, events
 * and "did it change" comparisons all go through this.
 */
export function postalAddress(address: (Omit<PostalAddress, "line2"> & { line2?: string | null }) | null | undefined): PostalAddress | null {
  if (!address) return null;
  return { line1: address.line1, line2: address.line2 ?? null, postal_code: address.postal_code, city: address.city, country: address.country };
}
