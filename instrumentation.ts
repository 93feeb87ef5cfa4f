/** Runs once when the Next.js server starts. */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  if (process.env.NEXT_PHASE === "phase-production-build") return;
  const { config } = await import("@/lib/config");
  if (config().databaseUrl) return;
  const { startEmbedded } = await import("@/lib/embedded");
  await startEmbedded(`http://localhost:${process.env.PORT ?? 3000}`);
}
