import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { config } from "@/lib/config";

/**
 * A secret from the environment, or, where that is safe (outside production, or on the embedded
 * database, which is local by nature), one generated once and kept in the data directory.
 */
export function secretFromEnvOrLocal(name: string, fromEnv: string | undefined): string {
  if (fromEnv) return fromEnv;
  if (config().production && config().databaseUrl) {
    throw new Error(`Set ${name} (32+ random characters): it is required in production.`);
  }
  const file = path.resolve(/*turbopackIgnore: true*/ process.cwd(), config().dataDir, `${name.toLowerCase()}.key`);
  if (!existsSync(file)) {
    mkdirSync(path.dirname(file), { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString("base64url"), { mode: 0o600, flag: "wx" });
    } catch (error) {
      // Another process wrote it first: use theirs.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return readFileSync(file, "utf8").trim();
}
