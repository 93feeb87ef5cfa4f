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
  WEBHOOK_SECRET_KEY: z.string().min(32, "WEBHOOK_SECRET_KEY must be at least 32 characters.").optional(),
  WEBHOOK_RETRY_DELAYS: z.string().optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(["true", "false"]).optional(),
  NEXTAUTH_SECRET: z.string().min(32, "NEXTAUTH_SECRET must be at least 32 characters.").optional(),
  GITHUB_ID: z.string().optional(),
  GITHUB_SECRET: z.string().optional(),
  INNGEST_DEV: z.string().optional(),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  CLOCK_TICK_MS: z.coerce.number().int().positive().optional(),
});

export type Config = {
  databaseUrl: string | undefined;
  environment: "prod" | "stg";
  dataDir: string;
  production: boolean;
  webhooks: {
    secretKey: string | undefined;
    retryDelays: string | undefined;
    timeoutMs: number | undefined;
    allowPrivateNetworks: boolean;
  };
  auth: {
    secret: string | undefined;
    github: { clientId: string; clientSecret: string } | null;
  };
  /** Inngest drives webhook delivery when a dev server, or an event key and a signing key, are set. */
  inngestConfigured: boolean;
  /** The embedded clock ticker's interval (lib/clock/ticker.ts), when overridden. */
  clockTickMs: number | undefined;
};

let cached: Config | undefined;

export function config(): Config {
  if (cached) return cached;
  // An empty variable means "not set" (common in .env files and CI matrices).
  const present = Object.fromEntries(Object.entries(process.env).filter(([, value]) => value !== ""));
  const env = EnvSchema.parse(present);
  cached = {
    databaseUrl: env.DATABASE_URL,
    environment: env.BILLING_ENV,
    dataDir: env.BILLING_DATA_DIR,
    production: env.NODE_ENV === "production",
    webhooks: {
      secretKey: env.WEBHOOK_SECRET_KEY,
      retryDelays: env.WEBHOOK_RETRY_DELAYS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true",
    },
    auth: {
      secret: env.NEXTAUTH_SECRET,
      github:
        env.GITHUB_ID && env.GITHUB_SECRET ? { clientId: env.GITHUB_ID, clientSecret: env.GITHUB_SECRET } : null,
    },
    // Dev mode needs only INNGEST_DEV; cloud or self-hosted mode needs both keys (sending events,
    // and the serve route answers 500 without a signing key).
    inngestConfigured: Boolean(env.INNGEST_DEV || (env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY)),
    clockTickMs: env.CLOCK_TICK_MS,
  };
  return cached;
}

export type BillingEnvironment = Config["environment"];
