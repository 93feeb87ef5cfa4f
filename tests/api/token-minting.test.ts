import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { apiTokens } from "@/db/schema";
import { ROLES, type Role } from "@/lib/auth/roles";
import { api, apiRoot, type ApiResponse } from "../helpers/api";
import { expectProblem } from "../helpers/problem";
import { newTeam } from "../helpers/team";

/*
 * A token can do no more than the member who makes it (docs/teams.md, "Who can mint what"): a
 * secret token calls every secret and publishable operation, a publishable token every publishable
 * one (createProduct, createPrice…), and both include changes only an admin may make. So only
 * admins and owners mint tokens; a developer (who may revoke and list them) and a viewer cannot.
 */
const MAY_MINT: Record<Role, boolean> = { owner: true, admin: true, developer: false, viewer: false };
const KINDS = ["secret", "publishable"] as const;

/** A sample of operations of every weight: reads, billing changes, settings, publishable changes. */
const SAMPLE: { name: string; method: string; path: (account: string) => string; body?: unknown }[] = [
  { name: "listCustomers", method: "GET", path: (a) => `/${a}/customers` },
  { name: "createCustomer", method: "POST", path: (a) => `/${a}/customers`, body: { email: "sample@example.com" } },
  { name: "createRefund", method: "POST", path: (a) => `/${a}/refunds`, body: { payment: "py_prod_missing" } },
  { name: "updateAccountSettings", method: "POST", path: (a) => `/${a}/account-settings`, body: { business_name: "Sample" } },
  { name: "createProduct", method: "POST", path: (a) => `/${a}/products`, body: { name: "Sample" } },
  { name: "listWebhookEndpoints", method: "GET", path: (a) => `/${a}/webhook-endpoints` },
];

describe("roles × token kinds × operations", () => {
  it("mints a token only for a role that may call everything the token may, and such a token never outranks its creator", async () => {
    const team = await newTeam();
    const account = team.live.id;
    const db = await getDb();
    for (const role of ROLES) {
      const session = team.sessions[role];
      for (const kind of KINDS) {
        const before = await db.select({ id: apiTokens.id }).from(apiTokens).where(inArray(apiTokens.accountId, [team.live.id, team.sandbox.id]));
        const minted = await session.request("POST", `/${account}/api-tokens`, { name: `${role} ${kind}`, kind });
        if (!MAY_MINT[role]) {
          expectProblem(minted, 403, role === "viewer" ? /Your role/ : /a token can do no more than the member who makes it/);
          expect(minted.body).toMatchObject({ role, required_role: role === "viewer" ? "developer" : "admin" });
          // A refusal changes nothing.
          const after = await db.select({ id: apiTokens.id }).from(apiTokens).where(inArray(apiTokens.accountId, [team.live.id, team.sandbox.id]));
          expect(after.length, `${role} ${kind}`).toBe(before.length);
          continue;
        }
        expect(minted.status, `${role} ${kind}: ${minted.text}`).toBe(201);
        const token = api(minted.body.token as string, apiRoot(team.base));
        for (const operation of SAMPLE) {
          const byToken: ApiResponse = await token.offContract.request(operation.method, operation.path(account), operation.body === undefined ? {} : { body: operation.body });
          const bySession = await session.request(operation.method, operation.path(account), operation.body);
          // Whatever the token may do, its creator may do (the converse need not hold: publishable tokens do less).
          if (byToken.status !== 403) expect(bySession.status, `${role} ${kind} ${operation.name}: ${bySession.text}`).not.toBe(403);
        }
      }
    }
  });

  it("the finding: a developer refused createRefund cannot mint a secret token that refunds or changes settings", async () => {
    const team = await newTeam();
    const account = team.live.id;
    const developer = team.sessions.developer;
    expectProblem(await developer.request("POST", `/${account}/refunds`, { payment: "py_prod_missing" }), 403, /Your role/);
    const minted = await developer.request("POST", `/${account}/api-tokens`, { name: "escalation", kind: "secret" });
    expectProblem(minted, 403, /secret token can call every secret and publishable operation/);
    expect(minted.body).toMatchObject({ error_code: "token_exceeds_role", role: "developer", required_role: "admin" });
    expect(minted.body.token).toBeUndefined();
    const db = await getDb();
    expect(await db.select().from(apiTokens).where(eq(apiTokens.createdBy, team.ids.developer))).toEqual([]);
    // Revoking and listing stay the developer's.
    expect((await developer.request("GET", `/${account}/api-tokens`)).status).toBe(200);
    const made = await team.sessions.admin.request("POST", `/${account}/api-tokens`, { name: "to revoke", kind: "secret" });
    expect((await developer.request("POST", `/${account}/api-tokens/${made.body.id}/revoke`)).status).toBe(200);
  });

  it("a removed or demoted member's tokens are listed on the Members page with a one-click revoke, and removal can revoke them", async () => {
    const team = await newTeam();
    const account = team.live.id;
    const owner = team.sessions.owner;
    const membersPage = async () => (await fetch(`${team.base}/accounts/${account}/settings`, { headers: { Cookie: owner.cookie } })).text();
    const works = async (token: string) => (await api(token, apiRoot(team.base)).get(`/${account}/customers`)).status;

    // The admin mints a token, then is removed without "revoke their tokens": it works, and is listed.
    const kept = await team.sessions.admin.request("POST", `/${account}/api-tokens`, { name: "kept-by-removed-admin", kind: "secret" });
    expect(kept.status, kept.text).toBe(201);
    expect(await membersPage()).not.toContain("kept-by-removed-admin");
    expect(await owner.action("removeMemberAction", { userId: team.ids.admin })).toMatchObject({ ok: true, tokensRevoked: 0 });
    expect(await works(kept.body.token)).toBe(200);
    const listed = await membersPage();
    expect(listed).toContain("Tokens made by removed or demoted members");
    expect(listed).toContain("kept-by-removed-admin");
    // One click: revoked, refused at once, no longer listed.
    expect(await owner.action("revokeMemberTokenAction", { tokenId: kept.body.id })).toMatchObject({ ok: true });
    expect(await works(kept.body.token)).toBe(401);
    expect(await membersPage()).not.toContain("kept-by-removed-admin");

    // A member promoted to admin mints, is demoted: listed with their role now.
    expect(await owner.action("changeMemberRoleAction", { userId: team.ids.viewer, role: "admin" })).toMatchObject({ ok: true });
    const demotedToken = await team.sessions.viewer.request("POST", `/${account}/api-tokens`, { name: "made-before-demotion", kind: "publishable" });
    expect(demotedToken.status, demotedToken.text).toBe(201);
    expect(await owner.action("changeMemberRoleAction", { userId: team.ids.viewer, role: "developer" })).toMatchObject({ ok: true });
    expect(await membersPage()).toContain("made-before-demotion");

    // Removal with "revoke their tokens": every token they made is revoked in the same change, with its event.
    expect(await owner.action("removeMemberAction", { userId: team.ids.viewer, revokeTokens: true })).toMatchObject({ ok: true, tokensRevoked: 1 });
    const db = await getDb();
    const [row] = await db.select().from(apiTokens).where(eq(apiTokens.id, demotedToken.body.id));
    expect(row!.revokedAt).not.toBeNull();
    const events = await team.sessions.owner.request("GET", `/${account}/events?event_type=api_token.revoked`);
    expect(events.body.items.map((event: { data: { id: string }; actor_id?: string }) => event.data.id)).toContain(demotedToken.body.id);
    expect(await membersPage()).not.toContain("made-before-demotion");
  });
});
