import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { invoices } from "@/db/schema";

/**
 * Another operation modifying the invoice: a transaction on the app's database, from the test
 * process, holding the invoice row's lock until the returned function releases it.
 */
export async function holdInvoiceLock(invoiceId: string): Promise<() => Promise<void>> {
  const db = await getDb();
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let locked!: () => void;
  const acquired = new Promise<void>((resolve) => (locked = resolve));
  const transaction = db.transaction(async (tx) => {
    await tx.select({ id: invoices.id }).from(invoices).where(eq(invoices.id, invoiceId)).for("update");
    locked();
    await released;
  });
  await Promise.race([acquired, transaction]);
  return async () => {
    release();
    await transaction;
  };
}
