import { sql } from "drizzle-orm";
import { getDb } from "@/db/client";

/** How long the readiness probe waits for the database before declaring the instance not ready. */
const PROBE_TIMEOUT_MS = 2_000;

class ProbeTimeout extends Error {
  readonly code = "CONNECT_TIMEOUT";
}

/** Ready when the database answers a trivial query within PROBE_TIMEOUT_MS; throws otherwise. */
export async function checkReadiness(): Promise<{ status: "ready"; database: "ok" }> {
  const db = await getDb();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ProbeTimeout("The database did not answer the readiness probe in time.")), PROBE_TIMEOUT_MS);
  });
  try {
    await Promise.race([db.execute(sql`select 1`), timeout]);
  } finally {
    clearTimeout(timer);
  }
  return { status: "ready", database: "ok" };
}
