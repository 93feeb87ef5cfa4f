import { z } from "zod";
import { assertServerlessReady, databaseSettings, type DatabaseSettings } from "./deploy";
import { addUtcMonths } from "@/lib/time";
import { isoExponent } from "./currencies";

/**
 * Process configuration, read once from the environment.
 * Every environment variable the service reads is declared here (and in docs/deploy.md, "Environment variables").
 */
const EnvSchema = z.object({
  DATABASE_URL: z.string().url().optional(),
  DATABASE_URL_UNPOOLED: z.string().url().optional(),
  DATABASE_POOLED: z.enum(["true", "false"]).optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(100).optional(),
  DATABASE_IDLE_SECONDS: z.coerce.number().int().min(1).max(3600).optional(),
  VERCEL: z.string().optional(),
  CRON_SECRET: z.string().min(16, "CRON_SECRET must be at least 16 characters.").optional(),
  BILLING_ENV: z.enum(["prod", "stg"]).default("prod"),
  BILLING_DATA_DIR: z.string().default(".data"),
  BILLING_TEMPLATE_DIR: z.string().default("node_modules/.cache/billing-service"),
  NODE_ENV: z.string().optional(),
  WEBHOOK_SECRET_KEY: z.string().min(32, "WEBHOOK_SECRET_KEY must be at least 32 characters.").optional(),
  WEBHOOK_RETRY_DELAYS: z.string().optional(),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().positive().optional(),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: z.enum(["true", "false"]).optional(),
  WEBHOOK_AUTO_DISABLE_AFTER: z.string().regex(/^(off|\d+(ms|s|m|h|d))$/, "WEBHOOK_AUTO_DISABLE_AFTER: e.g. 5d, 12h, or off.").optional(),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce.number().int().min(1).max(1000).optional(),
  WEBHOOK_MAX_IN_FLIGHT: z.coerce.number().int().min(1).max(10_000).optional(),
  WEBHOOK_DB_POOL_SIZE: z.coerce.number().int().min(1).max(100).optional(),
  NEXTAUTH_SECRET: z.string().min(32, "NEXTAUTH_SECRET must be at least 32 characters.").optional(),
  GITHUB_ID: z.string().optional(),
  GITHUB_SECRET: z.string().optional(),
  INNGEST_DEV: z.string().optional(),
  INNGEST_EVENT_KEY: z.string().optional(),
  INNGEST_SIGNING_KEY: z.string().optional(),
  CHANGE_PLAN_DEPRECATED_AT: z.string().optional(),
  CHANGE_PLAN_SUNSET_AT: z.string().optional(),
  /** Where the Stripe SDK sends requests (lib/payments/processors/stripe); tests point it at their stand-in. */
  STRIPE_API_BASE: z.string().url().default("https://api.stripe.com"),
  PLATFORM_BILLING: z.enum(["on", "off"]).default("off"),
  PLATFORM_BILLING_MODE: z.enum(["live", "sandbox"]).default("live"),
  PLATFORM_PLAN_AMOUNT_ATOM: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER).default(4900),
  PLATFORM_PLAN_CURRENCY: z.string().regex(/^[a-z]{3}$/).refine((code) => isoExponent(code) !== null, "Must be an ISO 4217 code of lib/currencies.ts.").default("usd"),
  PLATFORM_TRIAL_DAYS: z.coerce.number().int().min(1).max(730).default(14),
  CLOCK_TICK_MS: z.coerce.number().int().positive().optional(),
  SMTP_URL: z
    .string()
    .refine((url) => /^smtps?:\/\//.test(url), "Must be an smtp:// or smtps:// URL.")
    .optional(),
  /** The envelope sender and From address of every email (the account's name is its display name). */
  EMAIL_FROM: z.string().email().default("billing@localhost"),
  /** Delays before the retries of a temporary SMTP failure (4xx): "1m,5m,30m,2h,6h" by default. */
  EMAIL_RETRY_DELAYS: z.string().optional(),
  /** How often the embedded email driver looks for queued email (ms). */
  EMAIL_POLL_MS: z.coerce.number().int().positive().default(2000),
  /**
   * How long a sender's claim holds an email (ms): a sender that died holds its claimed emails this
   * long. Well beyond one attempt's timeouts by default; the crash tests shorten it.
   */
  EMAIL_LEASE_MS: z.coerce.number().int().min(1000).default(5 * 60_000),
  BACKGROUND_WORK: z.enum(["on", "off"]).optional(),
  RATE_LIMIT_PER_SECOND: z.coerce.number().int().positive().default(100),
  /**
   * The API limits' fixed window in seconds: RATE_LIMIT_PER_SECOND is counted per window. Tests
   * lengthen it so that a slow machine cannot split a burst across two windows.
   */
  RATE_LIMIT_WINDOW_SECONDS: z.coerce.number().int().positive().max(3600).default(1),
  /** How long a refill waits for the shared count before counting in this process (lib/api/rate-limit.ts). */
  RATE_LIMIT_STORE_DEADLINE_MS: z.coerce.number().int().positive().default(1_000),
  RATE_LIMIT_SIGN_IN_PER_MINUTE: z.coerce.number().int().positive().default(10),
  /** Capability pages (portal links, hosted invoices, checkout) per client address (docs/security.md). */
  RATE_LIMIT_PAGES_PER_MINUTE: z.coerce.number().int().positive().default(120),
  /** A portal session's absolute lifetime from its link's opening, in seconds (idle ends it sooner). */
  PORTAL_SESSION_MAX_AGE_SECONDS: z.coerce.number().int().positive().default(12 * 60 * 60),
  /** How often a long-lived process deletes expired rate-limit rows (lib/api/rate-limit.ts); tests shorten it. */
  RATE_LIMIT_PURGE_MS: z.coerce.number().int().positive().default(60_000),
  TRUST_PROXY: z.enum(["true", "false"]).optional(),
  SIGNUP: z.enum(["open", "invite", "closed"]).optional(),
  REQUEST_LOG: z.enum(["on", "off"]).default("on"),
  REQUEST_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  REQUEST_LOG_BATCH_SIZE: z.coerce.number().int().min(1).max(10_000).default(500),
  REQUEST_LOG_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(600_000).default(5_000),
  // 0 keeps raw usage events forever; else at least the 35 days identifiers deduplicate for.
  USAGE_EVENT_RETENTION_DAYS: z.coerce
    .number()
    .int()
    .refine((days) => days === 0 || (days >= 35 && days <= 36_500), "Must be 0 (keep forever) or 35 to 36500 days.")
    .default(400),
  /**
   * Group commit of one-event usage ingests (lib/usage/group-commit.ts): the most events of one
   * account written by one statement (1 turns grouping off), and how long a group waits for more
   * before it is written (0: only what arrived while the previous group was being written).
   */
  USAGE_GROUP_COMMIT_MAX: z.coerce.number().int().min(1).max(1000).default(100),
  USAGE_GROUP_COMMIT_WAIT_MS: z.coerce.number().int().min(0).max(100).default(0),
  /**
   * Group commit of small state changes (lib/events/group-commit.ts): the most concurrent changes of
   * one lane sharing one transaction (1 turns grouping off).
   */
  CHANGE_GROUP_COMMIT_MAX: z.coerce.number().int().min(1).max(1000).default(32),
  // Read live by the functions below the configuration, not through config().
  NEXTAUTH_URL: z.string().optional(),
  PORT: z.string().optional(),
  LOG_LEVEL: z.string().optional(),
});

export type Config = {
  databaseUrl: string | undefined;
  /** How the server connects to DATABASE_URL (pooler, pool size) and where migrations go (lib/deploy.ts). */
  database: DatabaseSettings;
  /** Running on Vercel (`VERCEL=1`): no process outlives its request (lib/jobs/serverless.ts). */
  serverless: boolean;
  /** The secret Vercel Cron sends as `Authorization: Bearer <CRON_SECRET>` (lib/cron). */
  cronSecret: string | undefined;
  environment: "prod" | "stg";
  dataDir: string;
  /** Where `npm install` keeps the embedded database's migrated template (db/embedded-template.ts). */
  templateDir: string;
  production: boolean;
  webhooks: {
    secretKey: string | undefined;
    retryDelays: string | undefined;
    timeoutMs: number | undefined;
    allowPrivateNetworks: boolean;
    /**
     * Loopback receivers (127.0.0.1, ::1, `localhost`), accepted at creation and delivered to:
     * with private networks, and in development (`next dev`) unless WEBHOOK_ALLOW_PRIVATE_NETWORKS=false.
     */
    allowLoopback: boolean;
    /** How long all attempts must fail before an endpoint is disabled (`5d`), or `off`. */
    autoDisableAfter: string;
    /** Attempts in flight per endpoint, across all instances (lib/webhooks/claim.ts). */
    endpointConcurrency: number;
    /** Attempts in flight per process: the embedded driver's backpressure. */
    maxInFlight: number;
    /** Connections of the delivery driver's own pool (PostgreSQL only). */
    dbPoolSize: number;
  };
  auth: {
    secret: string | undefined;
    github: { clientId: string; clientSecret: string } | null;
  };
  /** Inngest drives webhook delivery when a dev server, or an event key and a signing key, are set. */
  inngestConfigured: boolean;
  /** The deprecated change-subscription-plan operation: announced at `deprecatedAt`, 410 from `sunset`. */
  changePlan: DeprecationWindow;
  /** The Stripe API's base URL (`STRIPE_API_BASE`). */
  stripeApiBase: string;
  /** How the platform bills its merchant organizations (lib/platform). */
  platform: {
    /**
     * Whether the platform bills its merchant organizations (`PLATFORM_BILLING=on`). Off by default:
     * a self-hosted install is run by its owner, who owes it nothing; every organization reads `exempt`.
     */
    billing: boolean;
    /** Which of the platform's accounts holds the merchants' subscriptions; `sandbox` lets its test clock run them. */
    billingMode: "live" | "sandbox";
    plan: { amountAtom: number; currency: string };
    trialDays: number;
  };
  /** The embedded clock ticker's interval (lib/clock/ticker.ts), when overridden. */
  clockTickMs: number | undefined;
  /** Transactional email (lib/emails, docs/emails.md): without `smtpUrl`, messages become .eml files under dataDir/mail. */
  email: { smtpUrl: string | undefined; from: string; retryDelays: string | undefined; pollMs: number; leaseMs: number };
  /**
   * Whether this long-lived process runs the embedded background work (the webhook delivery
   * driver and the clock ticker). `BACKGROUND_WORK=off` makes an instance serve requests only,
   * beside worker instances that run it (docs/operations.md, "Runtime modes"); it needs a shared DATABASE_URL.
   */
  backgroundWork: boolean;
  /** Requests per second per live token; sandbox tokens and unauthenticated clients get a quarter (lib/api/rate-limit.ts). */
  rateLimitPerSecond: number;
  /** The window those requests are counted in (1 s unless RATE_LIMIT_WINDOW_SECONDS says otherwise). */
  rateLimitWindowSeconds: number;
  /** How long a refill waits for the shared count before counting alone (RATE_LIMIT_STORE_DEADLINE_MS). */
  rateLimitStoreDeadlineMs: number;
  /** Sign-in and sign-up attempts per minute per email; per client address three times as many. */
  signInPerMinute: number;
  /** Capability pages per client address per minute (lib/http/guard.ts). */
  pagesPerMinute: number;
  /** A portal session's absolute lifetime from its link's opening (lib/portal/sessions.ts). */
  portalSessionMaxAgeMs: number;
  rateLimitPurgeMs: number;
  /**
   * After SIGTERM or SIGINT, the longest the requests in flight may keep the process (a client that
   * stops reading its answer holds its connection open): then the process writes what it buffered
   * and exits anyway (instrumentation-node.ts).
   */
  shutdownDrainMs: number;
  /** Whether X-Forwarded-For/-Host/-Proto come from a proxy in front (else the socket's own values count). */
  trustProxy: boolean;
  /**
   * Who may create a new organization by signing up (`SIGNUP`, docs/teams.md); undefined: `invite`
   * in production once a user exists, else `open` (lib/teams/signup.ts decides).
   */
  signup: "open" | "invite" | "closed" | undefined;
  /** The API request log (lib/request-logs, docs/request-logs.md). */
  requestLog: {
    /** `REQUEST_LOG=off` records nothing (the benchmark compares both). */
    enabled: boolean;
    /** Whole days of partitions kept; older ones are dropped. */
    retentionDays: number;
    /** Rows per multi-row insert; a full batch is written at once. */
    batchSize: number;
    /** The longest a row waits in memory before its batch is written: what a crash can lose. */
    flushMs: number;
  };
  /**
   * Days raw usage events are kept (`USAGE_EVENT_RETENTION_DAYS`, docs/usage-billing.md,
   * "Retention"); 0: forever. The hourly aggregates are kept regardless.
   */
  usageEventRetentionDays: number;
  /** One-event ingests grouped into one statement (`USAGE_GROUP_COMMIT_MAX`, `USAGE_GROUP_COMMIT_WAIT_MS`). */
  usageGroupCommit: { maxEvents: number; waitMs: number };
  /** Concurrent small changes sharing one transaction (`CHANGE_GROUP_COMMIT_MAX`). */
  changeGroupCommit: { maxChanges: number };
};

export type DeprecationWindow = { deprecatedAt: Date; sunset: Date };

/** The spec's minimum deprecation notice (Limits: "minimum 6 months"), in calendar months. */
export const MIN_DEPRECATION_NOTICE_MONTHS = 6;
export const CHANGE_PLAN_DEPRECATED_AT_DEFAULT = "2026-11-22";

/** `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date-time with a zone. */
function parseInstant(name: string, value: string): Date {
  const ok = /^\d{4}-\d{2}-\d{2}$/.test(value) || /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
  const date = new Date(value);
  if (!ok || Number.isNaN(date.getTime())) {
    throw new Error(`${name} must be a date (YYYY-MM-DD, midnight UTC) or an ISO 8601 date-time with a zone; got '${value}'.`);
  }
  return date;
}

/**
 * The deprecation window of an operation from two settings. The sunset defaults to the minimum
 * notice after the deprecation date; an earlier sunset is refused, so no configuration can retire
 * the operation with less notice than the spec promises.
 */
export function deprecationWindow(
  names: { deprecatedAt: string; sunset: string },
  values: { deprecatedAt: string | undefined; sunset: string | undefined },
  defaultDeprecatedAt: string,
): DeprecationWindow {
  const deprecatedAt = parseInstant(names.deprecatedAt, values.deprecatedAt ?? defaultDeprecatedAt);
  const earliest = addUtcMonths(deprecatedAt, MIN_DEPRECATION_NOTICE_MONTHS);
  if (values.sunset === undefined) return { deprecatedAt, sunset: earliest };
  const sunset = parseInstant(names.sunset, values.sunset);
  if (sunset.getTime() < earliest.getTime()) {
    throw new Error(
      `${names.sunset} (${sunset.toISOString()}) must be at least ${MIN_DEPRECATION_NOTICE_MONTHS} months after ${names.deprecatedAt} (${deprecatedAt.toISOString()}): the earliest allowed sunset is ${earliest.toISOString()}.`,
    );
  }
  return { deprecatedAt, sunset };
}

/**
 * In production on PostgreSQL (several instances share one database), the secrets must come from
 * the environment: a secret generated per instance would sign sessions and encrypt webhook secrets
 * that the other instances cannot read. The embedded default keeps generated ones in its data
 * directory (lib/keys.ts), so `npm start` with nothing configured still works.
 */
function assertProductionSecrets(env: z.output<typeof EnvSchema>): void {
  if (env.NODE_ENV !== "production" || !env.DATABASE_URL) return;
  const missing = (["NEXTAUTH_SECRET", "WEBHOOK_SECRET_KEY"] as const).filter((name) => !env[name]);
  if (missing.length > 0) {
    throw new Error(
      `${missing.join(" and ")} must be set (32+ random characters, e.g. \`openssl rand -base64 32\`) in production with DATABASE_URL.`,
    );
  }
}

let cached: Config | undefined;

const DEFAULT_ENDPOINT_CONCURRENCY = 16;

/*
 * Settings read live, outside the validated and cached configuration: each has a reason not to
 * wait for config() (or not to trust its cache). They are here so that the environment is still
 * read in this file only (lint: no-restricted-properties).
 */

/** Pino's level: the logger must work even when the configuration is invalid (it reports that). */
export function logLevel(): string {
  return process.env.LOG_LEVEL ?? "info";
}

/**
 * The public base URL of this deployment: NEXTAUTH_URL, which instrumentation-node.ts may set
 * after start-up (to where the process listens), so it is read live rather than from the cache.
 */
export function publicBaseUrl(): string {
  const base = process.env.NEXTAUTH_URL ?? `http://localhost:${process.env.PORT ?? 3000}`;
  return base.replace(/\/+$/, "");
}

/** WEBHOOK_ENDPOINT_CONCURRENCY for Inngest's function options, fixed at import (before any request). */
export function endpointConcurrencySetting(): number {
  return Number(process.env.WEBHOOK_ENDPOINT_CONCURRENCY) || DEFAULT_ENDPOINT_CONCURRENCY;
}

export function config(): Config {
  cached ??= loadConfig(process.env);
  return cached;
}

/** The configuration of an environment; throws on an invalid one (at start-up, from instrumentation). */
export function loadConfig(source: Record<string, string | undefined>): Config {
  // An empty variable means "not set" (common in .env files and CI matrices).
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const env = EnvSchema.parse(present);
  const serverless = Boolean(env.VERCEL);
  const inngestConfigured = Boolean(env.INNGEST_DEV || (env.INNGEST_EVENT_KEY && env.INNGEST_SIGNING_KEY));
  const database = databaseSettings(env, serverless);
  assertServerlessReady({ serverless, databaseUrl: database.url, inngestConfigured, cronSecret: env.CRON_SECRET });
  assertProductionSecrets(env);
  if (env.BACKGROUND_WORK === "off" && !database.url) {
    // The embedded database is one process's: nobody else could deliver its webhooks.
    throw new Error("BACKGROUND_WORK=off needs DATABASE_URL: another instance on the same database must run the background work.");
  }
  return {
    databaseUrl: database.url,
    database,
    serverless,
    cronSecret: env.CRON_SECRET,
    environment: env.BILLING_ENV,
    dataDir: env.BILLING_DATA_DIR,
    templateDir: env.BILLING_TEMPLATE_DIR,
    production: env.NODE_ENV === "production",
    webhooks: {
      secretKey: env.WEBHOOK_SECRET_KEY,
      retryDelays: env.WEBHOOK_RETRY_DELAYS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      allowPrivateNetworks: env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true",
      allowLoopback:
        env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === "true" ||
        (env.NODE_ENV === "development" && env.WEBHOOK_ALLOW_PRIVATE_NETWORKS !== "false"),
      autoDisableAfter: env.WEBHOOK_AUTO_DISABLE_AFTER ?? "5d",
      endpointConcurrency: env.WEBHOOK_ENDPOINT_CONCURRENCY ?? DEFAULT_ENDPOINT_CONCURRENCY,
      maxInFlight: env.WEBHOOK_MAX_IN_FLIGHT ?? 256,
      dbPoolSize: env.WEBHOOK_DB_POOL_SIZE ?? 4,
    },
    auth: {
      secret: env.NEXTAUTH_SECRET,
      github:
        env.GITHUB_ID && env.GITHUB_SECRET ? { clientId: env.GITHUB_ID, clientSecret: env.GITHUB_SECRET } : null,
    },
    // Dev mode needs only INNGEST_DEV; cloud or self-hosted mode needs both keys (sending events,
    // and the serve route answers 500 without a signing key).
    inngestConfigured,
    changePlan: deprecationWindow(
      { deprecatedAt: "CHANGE_PLAN_DEPRECATED_AT", sunset: "CHANGE_PLAN_SUNSET_AT" },
      { deprecatedAt: env.CHANGE_PLAN_DEPRECATED_AT, sunset: env.CHANGE_PLAN_SUNSET_AT },
      CHANGE_PLAN_DEPRECATED_AT_DEFAULT,
    ),
    stripeApiBase: env.STRIPE_API_BASE,
    platform: {
      billing: env.PLATFORM_BILLING === "on",
      billingMode: env.PLATFORM_BILLING_MODE,
      plan: { amountAtom: env.PLATFORM_PLAN_AMOUNT_ATOM, currency: env.PLATFORM_PLAN_CURRENCY },
      trialDays: env.PLATFORM_TRIAL_DAYS,
    },
    clockTickMs: env.CLOCK_TICK_MS,
    email: { smtpUrl: env.SMTP_URL, from: env.EMAIL_FROM, retryDelays: env.EMAIL_RETRY_DELAYS, pollMs: env.EMAIL_POLL_MS, leaseMs: env.EMAIL_LEASE_MS },
    backgroundWork: env.BACKGROUND_WORK !== "off",
    rateLimitPerSecond: env.RATE_LIMIT_PER_SECOND,
    rateLimitWindowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
    rateLimitStoreDeadlineMs: env.RATE_LIMIT_STORE_DEADLINE_MS,
    signInPerMinute: env.RATE_LIMIT_SIGN_IN_PER_MINUTE,
    pagesPerMinute: env.RATE_LIMIT_PAGES_PER_MINUTE,
    portalSessionMaxAgeMs: env.PORTAL_SESSION_MAX_AGE_SECONDS * 1000,
    rateLimitPurgeMs: env.RATE_LIMIT_PURGE_MS,
    shutdownDrainMs: env.SHUTDOWN_DRAIN_MS,
    trustProxy: env.TRUST_PROXY === "true",
    signup: env.SIGNUP,
    requestLog: {
      enabled: env.REQUEST_LOG === "on",
      retentionDays: env.REQUEST_LOG_RETENTION_DAYS,
      batchSize: env.REQUEST_LOG_BATCH_SIZE,
      flushMs: env.REQUEST_LOG_FLUSH_MS,
    },
    usageEventRetentionDays: env.USAGE_EVENT_RETENTION_DAYS,
    usageGroupCommit: { maxEvents: env.USAGE_GROUP_COMMIT_MAX, waitMs: env.USAGE_GROUP_COMMIT_WAIT_MS },
    changeGroupCommit: { maxChanges: env.CHANGE_GROUP_COMMIT_MAX },
  };
}

export type BillingEnvironment = Config["environment"];
