/** Runs once when the Next.js server starts. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  // next-auth builds its callback URLs from NEXTAUTH_URL; default to where this process listens.
  process.env.NEXTAUTH_URL ??= `http://localhost:${process.env.PORT ?? 3000}`;
  const { config } = await import("@/lib/config");
  try {
    config();
  } catch (error) {
    // A misconfigured server must not start and answer 500s: say why and stop.
    console.error(`Invalid configuration: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
  const { installHttpGuard } = await import("@/lib/http/guard");
  installHttpGuard({ trustProxy: config().trustProxy });
  if (!config().databaseUrl) {
    const { startEmbedded } = await import("@/lib/embedded");
    await startEmbedded(`http://localhost:${process.env.PORT ?? 3000}`);
  }
  // Without Inngest, this process delivers webhooks and runs time-driven transitions itself.
  if (!config().inngestConfigured) {
    const { deliveryDriver } = await import("@/lib/webhooks/driver");
    deliveryDriver().start();
    const { clockTicker, DEFAULT_CLOCK_TICK_MS } = await import("@/lib/clock/ticker");
    const { runAllDueTransitions } = await import("@/lib/clock/service");
    clockTicker().start(runAllDueTransitions, config().clockTickMs ?? DEFAULT_CLOCK_TICK_MS);
  }
}
