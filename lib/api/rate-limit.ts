import { createHash } from "node:crypto";
import { RateLimiterDrizzle, RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { getDb } from "@/db/client";
import { rateLimits } from "@/db/schema";
import { config } from "@/lib/config";
import type { ServiceContext } from "@/lib/context";
import { ServiceError } from "@/lib/errors";
import { holdsSecret } from "@/lib/log";

/**
 * Rate limits (the spec's 429), counted in fixed windows by rate-limiter-flexible: in PostgreSQL
 * when DATABASE_URL is set, so that every instance shares one count, in this process on the
 * embedded default.
 *
 * A shared count costs a round trip; to keep that off most requests, each process takes points
 * from the shared store in batches (a tenth of the limit) and hands them out locally until the
 * window ends. The shared count therefore stays exact (a batch that crosses the limit is honoured
 * only up to it), and at most a batch per process is reserved but unused at a window's end. The
 * `remaining` a decision reports is the shared count's, as of this process's last batch.
 *
 * The shared count must never hold a request up while the database is away (docs/security.md, "No
 * database"): a refill waits for it at most RATE_LIMIT_STORE_DEADLINE_MS (1 s: far above a healthy
 * round trip even on a loaded machine, where a false "late" would split the count), then counts in
 * this process, and does so without asking the database again for STORE_BACKOFF_MS.
 */

/** After the shared count failed or was late, this process counts alone for this long. */
const STORE_BACKOFF_MS = 5_000;

export type Policy = { name: string; limit: number; windowSeconds: number };
export type Decision = { allowed: boolean; policy: Policy; remaining: number; resetMs: number };

/**
 * This process's points of the current window: `remaining` to hand out, and `shared`, what the
 * shared count had left when they were taken. What a client may still spend is about
 * `shared + remaining` (exact for one process; another process's unused batch, or what it took
 * since, puts it off by up to that batch).
 */
type Lease = { remaining: number; shared: number; until: number; exhausted: boolean };
/** `shared`: the count all instances share (null on the embedded default); `local`: this process's. */
type Stores = { shared: RateLimiterAbstract | null; local: RateLimiterAbstract };

class StoreLate extends Error {}

class BatchedLimiter {
  private readonly leases = new Map<string, Lease>();
  private stores: Stores | undefined;
  /** Until then, the shared count is not asked (it failed or was late). */
  private localUntil = 0;

  constructor(private readonly open: (points: number, duration: number) => Promise<Stores>, readonly policy: Policy) {}

  private readonly refills = new Map<string, Promise<Decision>>();

  async consume(key: string): Promise<Decision> {
    for (;;) {
      const now = Date.now();
      const lease = this.leases.get(key);
      if (lease && lease.until > now) {
        if (lease.remaining > 0) {
          lease.remaining--;
          return this.decision(true, lease, now);
        }
        if (lease.exhausted) return this.decision(false, lease, now);
      }
      // Concurrent requests wait for one refill instead of each taking a batch.
      const pending = this.refills.get(key);
      if (!pending) break;
      await pending.catch(() => undefined);
    }
    const refill = this.refill(key);
    this.refills.set(key, refill);
    try {
      return await refill;
    } finally {
      this.refills.delete(key);
    }
  }

  private async refill(key: string): Promise<Decision> {
    const now = Date.now();
    const { limit } = this.policy;
    const batch = Math.max(1, Math.floor(limit / 10));
    let result: RateLimiterRes;
    let exhausted = false;
    try {
      result = await this.take(key, batch);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      result = rejection;
      exhausted = true;
    }
    // Points of this batch that fit under the limit (all of them unless it crossed the limit).
    const granted = Math.max(0, Math.min(batch, limit - (result.consumedPoints - batch)));
    const next: Lease = {
      remaining: Math.max(0, granted - 1),
      shared: Math.max(0, limit - result.consumedPoints),
      until: now + result.msBeforeNext,
      exhausted: exhausted || granted < batch,
    };
    if (this.leases.size > 10_000) this.sweep(now);
    this.leases.set(key, next);
    return this.decision(granted > 0, next, now);
  }

  /** A batch from the shared count, or from this process's when the shared one is away or late. */
  private async take(key: string, batch: number): Promise<RateLimiterRes> {
    const stores = (this.stores ??= await this.open(this.policy.limit, this.policy.windowSeconds));
    if (!stores.shared || Date.now() < this.localUntil) return stores.local.consume(key, batch);
    const shared = stores.shared.consume(key, batch);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new StoreLate()), config().rateLimitStoreDeadlineMs)));
    try {
      return await Promise.race([shared, late]);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) throw rejection;
      // The database failed or is late: count here for a while (a late answer is dropped).
      shared.catch(() => undefined);
      this.localUntil = Date.now() + STORE_BACKOFF_MS;
      return stores.local.consume(key, batch);
    } finally {
      clearTimeout(timer);
    }
  }

  private decision(allowed: boolean, lease: Lease, now: number): Decision {
    // The shared quota's remaining points (RateLimit's `r`), not just this process's batch.
    return { allowed, policy: this.policy, remaining: lease.shared + lease.remaining, resetMs: Math.max(0, lease.until - now) };
  }

  private sweep(now: number): void {
    for (const [key, lease] of this.leases) if (lease.until <= now) this.leases.delete(key);
  }
}

async function openStores(keyPrefix: string, points: number, duration: number, local: boolean): Promise<Stores> {
  const memory = new RateLimiterMemory({ keyPrefix, points, duration });
  // The embedded default is one process: its counts live here (and need no database at all).
  if (local || !config().databaseUrl) return { shared: null, local: memory };
  const shared = new RateLimiterDrizzle({ storeClient: await getDb(), schema: rateLimits, keyPrefix, points, duration });
  return { shared, local: memory };
}

type Limiters = {
  live: BatchedLimiter;
  sandbox: BatchedLimiter;
  address: BatchedLimiter;
  /** Health probes: per address, in this process only, so that liveness never waits on the database. */
  probe: BatchedLimiter;
  signIn: { email: BatchedLimiter; address: BatchedLimiter };
  /** Capability pages (a token or id in the path: portal links, hosted invoices, checkout), per address. */
  pages: BatchedLimiter;
};

// One set per process even when Next.js bundles this module more than once.
const LIMITERS = Symbol.for("billing-service.rate-limiters");

function limiters(): Limiters {
  const store = globalThis as typeof globalThis & { [LIMITERS]?: Limiters };
  if (!store[LIMITERS]) {
    const perSecond = config().rateLimitPerSecond;
    const window = config().rateLimitWindowSeconds;
    const quarter = Math.max(1, Math.floor(perSecond / 4));
    const perMinute = config().signInPerMinute;
    const limiter = (name: string, limit: number, windowSeconds: number, local = false) =>
      // The limit is part of the key: instances configured differently (a rolling change of the
      // limit, or tests) do not read each other's counts as their own.
      new BatchedLimiter((points, duration) => openStores(`rl:${name}:${limit}`, points, duration, local), { name, limit, windowSeconds });
    store[LIMITERS] = {
      live: limiter("token", perSecond, window),
      sandbox: limiter("sandbox-token", quarter, window),
      address: limiter("address", quarter, window),
      probe: limiter("address", quarter, window, true),
      signIn: { email: limiter("sign-in-email", perMinute, 60), address: limiter("sign-in-address", perMinute * 3, 60) },
      pages: limiter("pages", config().pagesPerMinute, 60),
    };
  }
  return store[LIMITERS];
}

/** The client's address: the socket's, or the nearest proxy's view of it with TRUST_PROXY (lib/http/guard.ts). */
export function clientAddress(request: Request): string {
  return addressOf(Object.fromEntries(request.headers));
}

/** clientAddress from a plain header record (next-auth's and server actions' requests). */
export function addressOf(headers: Record<string, unknown> | undefined): string {
  const forwarded = headers?.["x-forwarded-for"];
  const hops = (typeof forwarded === "string" ? forwarded : "").split(",").map((hop) => hop.trim()).filter(Boolean);
  return hops.at(-1) ?? "unknown";
}

export function throttledMessage(decision: Decision): string {
  return `Too many attempts; try again in ${Math.max(1, Math.ceil(decision.resetMs / 1000))} seconds.`;
}

/** RateLimit-Policy and RateLimit fields (draft-ietf-httpapi-ratelimit-headers), and Retry-After on a refusal. */
export function setRateLimitHeaders(headers: Headers, decision: Decision): void {
  const { name, limit, windowSeconds } = decision.policy;
  const reset = Math.ceil(decision.resetMs / 1000);
  headers.set("RateLimit-Policy", `"${name}";q=${limit};w=${windowSeconds}`);
  headers.set("RateLimit", `"${name}";r=${decision.allowed ? decision.remaining : 0};t=${reset}`);
  if (!decision.allowed) headers.set("Retry-After", String(Math.max(1, reset)));
}

function refusal(decision: Decision, what: string): ServiceError {
  return new ServiceError(
    "rate_limited",
    `Too many requests ${what}: the limit is ${decision.policy.limit} per ${decision.policy.windowSeconds === 1 ? "second" : `${decision.policy.windowSeconds} seconds`}. Retry after ${Math.max(1, Math.ceil(decision.resetMs / 1000))} s.`,
    { error_code: "rate_limited" },
  );
}

async function enforce(limiter: BatchedLimiter, key: string, headers: Headers, what: string): Promise<void> {
  const decision = await limiter.consume(key);
  setRateLimitHeaders(headers, decision);
  if (!decision.allowed) throw refusal(decision, what);
}

/**
 * Authenticates within the limits: per token (or dashboard user) once authenticated, per client
 * address for public operations and for every failed authentication (so guessing tokens is
 * throttled too). `authenticate` is null for public operations; `probe` counts a health probe in
 * this process only.
 */
export async function rateLimited(
  request: Request,
  headers: Headers,
  authenticate: (() => Promise<ServiceContext>) | null,
  options: { probe?: boolean } = {},
): Promise<ServiceContext | null> {
  const address = clientAddress(request);
  const all = limiters();
  if (!authenticate) {
    await enforce(options.probe ? all.probe : all.address, address, headers, "from this address");
    return null;
  }
  let ctx: ServiceContext;
  try {
    ctx = await authenticate();
  } catch (error) {
    if (error instanceof ServiceError && error.category === "unauthorized") {
      await enforce(all.address, address, headers, "from this address without valid credentials");
    }
    throw error;
  }
  await enforce(ctx.livemode ? all.live : all.sandbox, `${ctx.actor.type}:${ctx.actor.id}`, headers, "with this credential");
  return ctx;
}

/**
 * One request for a capability page from this address (lib/http/guard.ts): whoever guesses or
 * replays links is held to the same kind of count as /api's requests without credentials.
 */
export async function limitCapabilityPage(address: string): Promise<Decision> {
  return limiters().pages.consume(address);
}

function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/**
 * Sign-in and sign-up attempts: per email and per client address; the refusal, or null. A key is
 * stored (`rate_limits.key`), so one that holds a secret the scanner knows (a token typed into the
 * email field) is counted under its SHA-256.
 */
export async function limitSignIn(address: string, email: string): Promise<Decision | null> {
  const normalized = email.trim().toLowerCase();
  return limitAttempts(address, holdsSecret(normalized) ? `sha256:${sha256Hex(normalized)}` : normalized);
}

/**
 * Attempts to accept an invitation: per address, and per link under `invite:<SHA-256 of the
 * token>`, never the token itself (whoever reads `rate_limits` could accept it; docs/teams.md).
 */
export async function limitInvitationAttempt(address: string, token: string): Promise<Decision | null> {
  return limitAttempts(address, `invite:${sha256Hex(token)}`);
}

/**
 * Portal sign-in link requests: per address, and per account and email under its SHA-256 (the
 * email is a customer's: never stored as a key). The refusal, or null.
 */
export async function limitPortalSignIn(address: string, accountId: string, email: string): Promise<Decision | null> {
  return limitAttempts(address, `portal:${sha256Hex(`${accountId}:${email.trim().toLowerCase()}`)}`);
}

async function limitAttempts(address: string, subject: string): Promise<Decision | null> {
  const all = limiters();
  for (const [limiter, key] of [
    [all.signIn.address, address],
    [all.signIn.email, subject],
  ] as const) {
    const decision = await limiter.consume(key);
    if (!decision.allowed) return decision;
  }
  return null;
}

