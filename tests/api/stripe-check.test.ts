import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStripeStandIn, type StripeStandIn } from "../helpers/stripe-stand-in";

/*
 * `npm run stripe:check` (scripts/stripe-check.ts, docs/payments.md "npm run stripe:check") is for
 * an operator with network access to Stripe. Here it runs, as that operator would run it, against
 * a stand-in of its own (`STRIPE_API_BASE`): every check passes on a Stripe that behaves, a key
 * Stripe refuses fails the run and names why, and a live key is refused before any request is sent.
 */

const run = promisify(execFile);
let standIn: StripeStandIn;

beforeAll(async () => {
  standIn = await startStripeStandIn();
});

afterAll(async () => {
  await standIn.close();
});

async function stripeCheck(secretKey: string, publishableKey: string): Promise<{ code: number; stdout: string; stderr: string }> {
  // Stripe's webhooks go nowhere during the check: a closed loopback port.
  const args = ["scripts/run.mjs", "scripts/stripe-check.ts", "--secret-key", secretKey, "--publishable-key", publishableKey, "--webhook-url", "http://127.0.0.1:9/stripe-check"];
  try {
    const { stdout, stderr } = await run(process.execPath, args, { env: { ...process.env, STRIPE_API_BASE: standIn.url }, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe("npm run stripe:check", () => {
  it("passes every check against a Stripe that behaves, and leaves no webhook endpoint behind", async () => {
    const result = await stripeCheck("sk_test_stripe_check_k3y", "pk_test_stripe_check_k3y");
    expect(result.code, result.stdout + result.stderr).toBe(0);
    const lines = result.stdout.split("\n").filter((line) => /^(ok|FAIL) /.test(line));
    expect(lines.length).toBe(12);
    expect(lines.every((line) => line.startsWith("ok "))).toBe(true);
    expect(result.stdout).toContain("12 of 12 checks passed");
    // What it made at "Stripe": one charge per key (the renewal's key sent twice made one charge), its endpoint deleted.
    expect(standIn.webhookEndpoints.size).toBe(0);
    const renewal = [...standIn.paymentIntents.values()].filter((intent) => intent.metadata?.payment_intent?.endsWith("_renewal"));
    expect(renewal).toHaveLength(1);
    expect(standIn.charges.filter((charge) => charge === renewal[0]!.id)).toHaveLength(1);
  });

  it("a key Stripe refuses fails the run, naming why; the checks after it are skipped", async () => {
    const result = await stripeCheck("sk_test_revoked_key", "pk_test_stripe_check_k3y");
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^FAIL {2}connect: .*Stripe refused the key/m);
    expect(result.stdout).toMatch(/^FAIL {2}a customer: skipped/m);
    expect(result.stdout).toContain("0 of 12 checks passed");
  });

  it("a live key is refused before anything is sent", async () => {
    const before = standIn.requests.length;
    const result = await stripeCheck("sk_live_stripe_check_k3y", "pk_live_stripe_check_k3y");
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("test mode only");
    expect(standIn.requests.length).toBe(before);
  });
});
