/** Runs once when the Next.js server starts (on Vercel: once per function instance). */
export async function register(): Promise<void> {
  // Node-only code lives in its own module behind this check, the pattern Next documents: the
  // Edge compile then drops it instead of warning about process.exit.
  if (process.env.NEXT_RUNTIME === "nodejs") {
    const { registerNode } = await import("./instrumentation-node");
    await registerNode();
  }
}
