import { z } from "zod";

/**
 * Process configuration, read once from the environment.
 * Every environment variable the service reads is declared here (and in the README).
 */
const EnvSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  BILLING_ENV: z.enum(["prod", "stg"]).default("prod"),
  BILLING_DATA_DIR: z.string().default(".data"),
  NODE_ENV: z.string().optional(),
});

export type Config = {
  databaseUrl: string | undefined;
  environment: "prod" | "stg";
  dataDir: string;
};

let cached: Config | undefined;

export function config(): Config {
  if (cached) return cached;
  const env = EnvSchema.parse({
    ...process.env,
    // An empty variable means "not set" (common in .env files and CI matrices).
    DATABASE_URL: process.env.DATABASE_URL || undefined,
    BILLING_ENV: process.env.BILLING_ENV || undefined,
    BILLING_DATA_DIR: process.env.BILLING_DATA_DIR || undefined,
  });
  cached = {
    databaseUrl: env.DATABASE_URL,
    environment: env.BILLING_ENV,
    dataDir: env.BILLING_DATA_DIR,
  };
  return cached;
}

export type BillingEnvironment = Config["environment"];
