import { existsSync, readFileSync, writeFileSync, mkdirSync, unlinkSync } from "node:fs";
import path from "node:path";
import { count } from "drizzle-orm";
import { getDb } from "@/db/client";
import { organizations } from "@/db/schema";
import { config } from "@/lib/config";
import { describeSeed, seedDemo, type SeedResult } from "@/lib/seed";

/**
 * The embedded default (no DATABASE_URL): one process owns the PGlite files under the data
 * directory. The server records its pid there so that `npm run seed` does not open the same files
 * from a second process, and keeps the demo credentials of this local database so that every
 * start can print them.
 */
const dataFile = (name: string) => path.resolve(/*turbopackIgnore: true*/ process.cwd(), config().dataDir, name);
const PID_FILE = "server.pid";
const CREDENTIALS_FILE = "credentials.json";

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid of another live process that holds the embedded database, if any. */
export function embeddedOwner(): number | null {
  const file = dataFile(PID_FILE);
  if (!existsSync(file)) return null;
  const pid = Number(readFileSync(file, "utf8").trim());
  return Number.isInteger(pid) && pid !== process.pid && isAlive(pid) ? pid : null;
}

export function claimEmbedded(): void {
  mkdirSync(path.dirname(dataFile(PID_FILE)), { recursive: true });
  writeFileSync(dataFile(PID_FILE), String(process.pid));
  process.once("exit", () => {
    try {
      if (readFileSync(dataFile(PID_FILE), "utf8").trim() === String(process.pid)) unlinkSync(dataFile(PID_FILE));
    } catch {
      // already gone
    }
  });
}

export function saveEmbeddedCredentials(result: SeedResult): void {
  writeFileSync(dataFile(CREDENTIALS_FILE), JSON.stringify(result, null, 2), { mode: 0o600 });
}

function loadEmbeddedCredentials(): SeedResult | null {
  try {
    return JSON.parse(readFileSync(dataFile(CREDENTIALS_FILE), "utf8")) as SeedResult;
  } catch {
    return null;
  }
}

/**
 * On server start: claim the embedded database (throws at once if another process holds it), then
 * migrate it, seed it when empty and print the login, in the background: pages that need no data
 * (the sign-in page) answer meanwhile, and requests that do wait for the database to open.
 * A database that cannot be opened stops the process.
 */
export function startEmbedded(baseUrl: string): void {
  const owner = embeddedOwner();
  if (owner) {
    throw new Error(`The embedded database under ${config().dataDir}/ is in use by process ${owner}.`);
  }
  claimEmbedded();
  prepareEmbedded(baseUrl).catch((error: unknown) => {
    console.error(`The embedded database under ${config().dataDir}/ could not be opened: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}

async function prepareEmbedded(baseUrl: string): Promise<void> {
  const db = await getDb();
  const [{ organizations: existing } = { organizations: 0 }] = await db
    .select({ organizations: count() })
    .from(organizations);
  let credentials = loadEmbeddedCredentials();
  if (existing === 0) {
    credentials = await seedDemo(db);
    saveEmbeddedCredentials(credentials);
    console.log(`\nSeeded a new embedded database under ${config().dataDir}/.`);
  }
  if (credentials) console.log(`\n${describeSeed(credentials, baseUrl)}\n`);
  else console.log(`\nEmbedded database under ${config().dataDir}/. Run \`npm run seed\` (server stopped) for a login.\n`);
}
