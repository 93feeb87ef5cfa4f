/**
 * The Node.js part of instrumentation.ts: imported only when NEXT_RUNTIME is "nodejs", so the Edge
 * bundle never sees process.exit or the server modules (Next warned about them on every compile).
 */
import type { Config } from "@/lib/config";

export async function registerNode(): Promise<void> {
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  // next-auth builds its callback URLs from NEXTAUTH_URL, checkout its page URLs; default to where
  // this process listens (on Vercel: the production domain, or a preview's deployment URL).
  const vercelHost =
    process.env.VERCEL_ENV === "production" ? (process.env.VERCEL_PROJECT_PRODUCTION_URL ?? process.env.VERCEL_URL) : process.env.VERCEL_URL;
  process.env.NEXTAUTH_URL ??= vercelHost ? `https://${vercelHost}` : `http://localhost:${process.env.PORT ?? 3000}`;
  const { config } = await import("@/lib/config");
  try {
    config();
  } catch (error) {
    // A misconfigured server must not start and answer 500s: say why and stop.
    console.error(`Invalid configuration: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  // The lower layers get their work from the upper ones (lib/server/wiring.ts): on globalThis, so every
  // bundle of this process (routes, pages, server actions) sees it.
  const { wire } = await import("@/lib/server/wiring");
  wire();
  const { installHttpGuard } = await import("@/lib/http/guard");
  installHttpGuard({ trustProxy: config().trustProxy });
  const flushRequestLogs = config().requestLog.enabled ? (await import("@/lib/request-recorder/writer")).flushRequestLogs : null;
  boundShutdown({ drainMs: config().shutdownDrainMs, flushRequestLogs });
  // The rest runs after the server starts answering: in `next dev` its imports (the domain, the
  // driver, the embedded database) compile for seconds, and no page should wait for that.
  void startBackground(config()).catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : String(error));
    process.exit(1);
  });
}

/** The longest a clean shutdown waits for the request log's last rows. */
const SHUTDOWN_FLUSH_MS = 5_000;

/** The exit status `next start` itself uses for each signal (128 + the signal's number). */
const SIGNAL_EXIT_CODES = { SIGTERM: 143, SIGINT: 130 } as const;

/**
 * `next start` answers SIGTERM and SIGINT itself: it stops accepting connections, lets the requests
 * in flight finish (each adds its request log row), then calls process.exit. Two things are added:
 * - the exit is deferred until the request log's buffer is written (at most SHUTDOWN_FLUSH_MS),
 *   the rows of the requests that finished during the shutdown too;
 * - the wait for the requests in flight is bounded (`SHUTDOWN_DRAIN_MS`): a client that stops
 *   reading a large answer keeps its connection busy, and Next.js would wait for it until the
 *   platform's SIGKILL, which writes nothing. Past the bound the process exits through the same
 *   deferred exit, so the buffer is still written.
 */
function boundShutdown(settings: { drainMs: number; flushRequestLogs: (() => Promise<void>) | null }): void {
  const { flushRequestLogs } = settings;
  const onSignal = (signal: keyof typeof SIGNAL_EXIT_CODES) => {
    if (flushRequestLogs) {
      const exit = process.exit.bind(process);
      let exiting = false;
      process.exit = ((code?: number) => {
        if (exiting) return undefined as never;
        exiting = true;
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, SHUTDOWN_FLUSH_MS).unref());
        void Promise.race([flushRequestLogs(), timeout])
          .catch(() => undefined)
          .finally(() => exit(code));
        return undefined as never;
      }) as typeof process.exit;
    }
    setTimeout(() => {
      console.warn(`Requests still in flight ${settings.drainMs} ms after ${signal} (SHUTDOWN_DRAIN_MS): exiting without them.`);
      process.exit(SIGNAL_EXIT_CODES[signal]);
    }, settings.drainMs).unref();
  };
  process.once("SIGTERM", () => onSignal("SIGTERM"));
  process.once("SIGINT", () => onSignal("SIGINT"));
}

async function startBackground(settings: Config): Promise<void> {
  if (!settings.databaseUrl) {
    const { startEmbedded } = await import("@/lib/embedded");
    startEmbedded(`http://localhost:${process.env.PORT ?? 3000}`);
  }
  if (settings.inngestConfigured) return;
  if (settings.serverless) {
    // No timers: an instance is frozen after its response. See lib/jobs/serverless.ts.
    console.log("Serverless (VERCEL=1) without Inngest: first webhook attempts run after each response; retries and time-driven transitions run from Vercel Cron (/api/cron/*).");
    return;
  }
  if (!settings.backgroundWork) {
    // Deliveries and transitions committed here are announced (NOTIFY) to the instances that run them.
    console.log("BACKGROUND_WORK=off: this instance serves requests only; webhook deliveries and time-driven transitions run on the instances that have it on.");
    return;
  }
  // Without Inngest, this long-lived process delivers webhooks, runs time-driven transitions and
  // folds the lists' count deltas in itself.
  const { deliveryDriver } = await import("@/lib/webhooks/driver");
  deliveryDriver().start();
  const { emailDriver } = await import("@/lib/email-outbox/driver");
  const { sendDueEmails } = await import("@/lib/emails/send");
  emailDriver().start(() => sendDueEmails(), settings.email.pollMs);
  const { clockTicker, DEFAULT_CLOCK_TICK_MS } = await import("@/lib/clock/ticker");
  const { runAllDueTransitions } = await import("@/lib/clock/service");
  clockTicker().start(runAllDueTransitions, settings.clockTickMs ?? DEFAULT_CLOCK_TICK_MS);
  const { listCountCompactor, LIST_COUNT_COMPACTION_MS, rateLimitPurger } = await import("@/lib/jobs/list-count-compactor");
  listCountCompactor().start(LIST_COUNT_COMPACTION_MS, { unref: true });
  rateLimitPurger().start(settings.rateLimitPurgeMs, { unref: true });
}
