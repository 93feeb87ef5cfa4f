import { createHash } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { organizationAccounts } from "@/lib/auth/users";
import { signUp } from "@/lib/teams/users";
import { api, apiRoot } from "../helpers/api";
import { eventually } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { callAction } from "../helpers/server-action";
import { memberSession, PASSWORD, uniqueEmail } from "../helpers/team";

/*
 * What `rate_limits` keeps (docs/security.md, "Rate limits"): keys that hold no secret (an
 * invitation's link is counted under its SHA-256), and only the current windows: expired rows are
 * purged on a schedule (RATE_LIMIT_PURGE_MS here, a minute by default; Inngest's clock tick and the
 * Vercel clock cron do the same). This file's own app has limits of its own (so its keys are its
 * own: the limit is part of each key) and trusts X-Forwarded-For, to flood with distinct addresses.
 */
const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 5 }));

const PER_SECOND = 44;
const SIGN_IN_PER_MINUTE = 37;
let app: RunningApp;
beforeAll(async () => {
  app = await startApp({
    DATABASE_URL: inject("databaseUrl"),
    RATE_LIMIT_PER_SECOND: String(PER_SECOND),
    RATE_LIMIT_SIGN_IN_PER_MINUTE: String(SIGN_IN_PER_MINUTE),
    RATE_LIMIT_PURGE_MS: "300",
    TRUST_PROXY: "true",
  });
});
afterAll(async () => {
  await app?.stop();
});

describe("rate-limit keys", () => {
  it("count an invitation link under its SHA-256, never the token", async () => {
    const ownerEmail = uniqueEmail("limits");
    const owner = await signUp({ name: "Owner", company: "Limits Co", email: ownerEmail, password: PASSWORD });
    const [live] = await organizationAccounts(owner.organizationId);
    const session = await memberSession(app.baseUrl, ownerEmail, live!.id);
    const invitation = await session.action("createInvitationAction", { email: uniqueEmail("invitee"), role: "owner" });
    expect(invitation.ok, JSON.stringify(invitation)).toBe(true);
    const token = invitation.path!.split("/").pop()!;

    // A refused attempt (password too short) is counted, and leaves the invitation pending.
    const attempt = await callAction(app.baseUrl, invitation.path!, "acceptInvitationAction", { token, name: "X", password: "short" });
    expect(attempt.result).toMatchObject({ ok: false });

    const hashed = `rl:sign-in-email:${SIGN_IN_PER_MINUTE}:invite:${createHash("sha256").update(token).digest("hex")}`;
    expect(await sql`select key from rate_limits where key = ${hashed}`).toHaveLength(1);
    expect(await sql`select key from rate_limits where key like ${`%${token}%`}`).toEqual([]);
  });

  it("are purged once their window has ended, however many distinct keys a flood brings", async () => {
    const addresses = Array.from({ length: 60 }, (_, i) => `198.51.100.${i + 1}`);
    // Requests without valid credentials are counted per address (a one-second window).
    const client = api("st_prod_00000000000000000000000000000000", apiRoot(app.baseUrl));
    for (const address of addresses) {
      const response = await client.get("/customers", { headers: { "X-Forwarded-For": address } });
      expect(response.status).toBe(401);
    }
    const keys = addresses.map((address) => `rl:address:${Math.floor(PER_SECOND / 4)}:${address}`);
    const stored = await sql`select key from rate_limits where key = any(${keys})`;
    expect(stored.length).toBeGreaterThan(0);
    // Each row's window ends a second after it began; the purge then removes it.
    await eventually(async () => (await sql`select count(*)::int as n from rate_limits where key = any(${keys})`)[0]!.n as number, (n) => n === 0, 30_000);
    // Nothing expired is kept from this app's windows.
    const expired = await sql`select key from rate_limits where expire < now() - interval '5 seconds' and key like ${`rl:%:${Math.floor(PER_SECOND / 4)}:%`}`;
    expect(expired).toEqual([]);
  });
});
