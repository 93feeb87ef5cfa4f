import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { eq, inArray, sql } from "drizzle-orm";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { accounts, apiTokens, events, invitations, users, webhookEndpoints } from "@/db/schema";
import { API_OPERATIONS } from "@/lib/server/operations-index";
import { ROLES, type Role } from "@/lib/auth/roles";
import { createMigratedDatabase } from "../helpers/database";
import { startApp, PROJECT_ROOT, type RunningApp } from "../helpers/server";
import { callAction } from "../helpers/server-action";
import { signInWithPassword } from "../helpers/sign-in";
import { memberSession, newTeam, PASSWORD, uniqueEmail } from "../helpers/team";
import { expectProblem } from "../helpers/problem";
import { api, apiRoot } from "../helpers/api";
import { refusedUrl } from "../helpers/receiver";

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };
/** What the docs promise developers beyond reading (docs/teams.md): written out here, so a drift fails. */
const DEVELOPER_OPERATIONS = new Set([
  "createApiToken",
  "revokeApiToken",
  "rollApiToken",
  "createWebhookEndpoint",
  "updateWebhookEndpoint",
  "deleteWebhookEndpoint",
  "rotateWebhookEndpointSecret",
  "retryFailedWebhookDeliveries",
  "retryDelivery",
  "sendWebhookTestEvent",
  "replayWebhookEndpointEvents",
  "resendEvent",
  "advanceTestClock",
]);
/** Reads that only an admin may make: the payment processor connection (its keys' last characters, its webhook). */
const ADMIN_READS = new Set(["getPaymentProcessor"]);
const needed = (operation: (typeof API_OPERATIONS)[number]): Role =>
  ADMIN_READS.has(operation.operationId)
    ? "admin"
    : operation.method === "GET"
      ? "viewer"
      : DEVELOPER_OPERATIONS.has(operation.operationId)
        ? "developer"
        : "admin";
/** Every /api operation a dashboard session can reach. */
const SESSION_OPERATIONS = API_OPERATIONS.filter((operation) => operation.access !== "public" && operation.access !== "operator");

/** Everything a refused request could have changed, as one comparable value. */
async function snapshot(organizationId: string, accountIds: string[]) {
  const db = await getDb();
  const [eventCount] = await db.select({ n: sql<number>`count(*)::int` }).from(events).where(inArray(events.accountId, accountIds));
  return {
    events: eventCount?.n,
    tokens: await db.select().from(apiTokens).where(inArray(apiTokens.accountId, accountIds)).orderBy(apiTokens.id),
    endpoints: await db.select().from(webhookEndpoints).where(inArray(webhookEndpoints.accountId, accountIds)).orderBy(webhookEndpoints.id),
    accounts: await db.select().from(accounts).where(inArray(accounts.id, accountIds)),
    users: await db.select({ id: users.id, role: users.role }).from(users).where(eq(users.organizationId, organizationId)).orderBy(users.id),
    invitations: await db.select().from(invitations).where(eq(invitations.organizationId, organizationId)).orderBy(invitations.id),
  };
}

describe("roles × dashboard actions", () => {
  it("allows each /api operation exactly to the roles that may call it; a refusal is a 403 problem and changes nothing", async () => {
    const team = await newTeam();
    const accountIds = [team.live.id, team.sandbox.id];
    for (const role of ROLES) {
      const session = team.sessions[role];
      const before = await snapshot(team.organizationId, accountIds);
      for (const operation of SESSION_OPERATIONS.filter((op) => RANK[role] < RANK[needed(op)])) {
        const path = operation.path.replace("{account_id}", team.live.id).replace(/\{[a-z_]+\}/g, "missing");
        const response = await session.request(operation.method, path, operation.body ? {} : undefined);
        expectProblem(response, 403, /Your role/);
        expect(response.body, operation.operationId).toMatchObject({ role, required_role: needed(operation) });
      }
      expect(await snapshot(team.organizationId, accountIds), role).toEqual(before);
      for (const operation of SESSION_OPERATIONS.filter((op) => RANK[role] >= RANK[needed(op)])) {
        const path = operation.path.replace("{account_id}", team.live.id).replace(/\{[a-z_]+\}/g, "missing");
        const query = operation.operationId === "readEventFeed" ? "?wait=0" : "";
        const response = await session.request(operation.method, path + query, operation.body ? {} : undefined);
        expect(response.status, `${role} ${operation.operationId}: ${response.text}`).not.toBe(403);
      }
    }
  });

  it("checks the role in every Settings server action; a refusal is a 403 problem with a request id and changes nothing", async () => {
    const team = await newTeam();
    const accountIds = [team.live.id, team.sandbox.id];
    const actions: { name: string; needs: Role; input: () => unknown }[] = [
      { name: "createInvitationAction", needs: "admin", input: () => ({ email: uniqueEmail("invitee"), role: "viewer" }) },
      { name: "revokeInvitationAction", needs: "admin", input: () => ({ invitationId: "inv_missing" }) },
      { name: "changeMemberRoleAction", needs: "admin", input: () => ({ userId: team.ids.viewer, role: "viewer" }) },
      { name: "removeMemberAction", needs: "admin", input: () => ({ userId: "user_missing" }) },
      { name: "changePasswordAction", needs: "viewer", input: () => ({ currentPassword: "not the password", newPassword: "another long password" }) },
    ];
    for (const role of ROLES) {
      for (const action of actions) {
        const before = await snapshot(team.organizationId, accountIds);
        const result = await team.sessions[role].action(action.name, action.input());
        if (RANK[role] >= RANK[action.needs]) {
          expect(result.problem?.status, `${role} ${action.name}`).not.toBe(403);
        } else {
          expect(result.ok, `${role} ${action.name}`).toBe(false);
          expect(result.problem).toMatchObject({ status: 403, required_role: action.needs, request_id: expect.stringMatching(/^req_prod_/) });
          expect(await snapshot(team.organizationId, accountIds), `${role} ${action.name}`).toEqual(before);
        }
      }
    }
  });
});

describe("invitations", () => {
  async function accept(base: string, path: string, name = "Invitee") {
    return (await callAction(base, path, "acceptInvitationAction", { token: path.split("/").pop(), name, password: PASSWORD })).result as {
      ok: boolean;
      email?: string;
      message?: string;
    };
  }

  it("a link joins the organization with the invited role, once; the page and a second use say it no longer works", async () => {
    const team = await newTeam();
    const email = uniqueEmail("dev");
    const created = await team.sessions.admin.action("createInvitationAction", { email, role: "developer" });
    expect(created).toMatchObject({ ok: true, path: expect.stringMatching(/^\/invite\/inv_[0-9a-z]{32}$/) });
    const db = await getDb();
    const [stored] = await db.select().from(invitations).where(eq(invitations.id, created.invitationId!));
    expect(stored!.tokenHash).not.toContain(created.path!.split("/").pop());
    expect(stored!.expiresAt.getTime() - stored!.created.getTime()).toBe(7 * 24 * 3600 * 1000);

    const page = await fetch(`${team.base}${created.path}`);
    expect(await page.text()).toContain(email);
    expect(await accept(team.base, created.path!)).toEqual({ ok: true, email });
    const [joined] = await db.select().from(users).where(eq(users.email, email));
    expect(joined).toMatchObject({ organizationId: team.organizationId, role: "developer" });

    const invitee = await memberSession(team.base, email, team.live.id);
    expect((await invitee.request("POST", `/${team.live.id}/webhook-endpoints`, { url: await refusedUrl(), events: ["*"] })).status).toBe(201);
    expect((await invitee.request("POST", `/${team.live.id}/customers`, { email: "c@example.com" })).status).toBe(403);

    expect(await accept(team.base, created.path!, "Someone else")).toMatchObject({ ok: false, message: /does not work/ });
    expect(await (await fetch(`${team.base}${created.path}`)).text()).toContain("does not work");
  });

  it("refuses expired, revoked and unknown links; revoking is for the inviting organization only", async () => {
    const team = await newTeam();
    const other = await newTeam();
    const db = await getDb();
    const expired = await team.sessions.owner.action("createInvitationAction", { email: uniqueEmail("late"), role: "viewer" });
    await db.update(invitations).set({ expiresAt: sql`now() - interval '1 second'` }).where(eq(invitations.id, expired.invitationId!));
    expect(await accept(team.base, expired.path!)).toMatchObject({ ok: false, message: /does not work/ });

    const revoked = await team.sessions.owner.action("createInvitationAction", { email: uniqueEmail("gone"), role: "viewer" });
    const foreign = await other.sessions.owner.action("revokeInvitationAction", { invitationId: revoked.invitationId });
    expect(foreign).toMatchObject({ ok: false, problem: { status: 404 } });
    expect(await team.sessions.admin.action("revokeInvitationAction", { invitationId: revoked.invitationId })).toMatchObject({ ok: true });
    expect(await accept(team.base, revoked.path!)).toMatchObject({ ok: false, message: /does not work/ });
    expect(await accept(team.base, `/invite/inv_${"0".repeat(32)}`)).toMatchObject({ ok: false, message: /does not work/ });
    expect(await db.select().from(users).where(eq(users.organizationId, team.organizationId))).toHaveLength(4);

    // An admin cannot invite an owner; nobody can invite an email that has an account.
    expect(await team.sessions.admin.action("createInvitationAction", { email: uniqueEmail("boss"), role: "owner" })).toMatchObject({
      problem: { status: 403 },
    });
    expect(await team.sessions.owner.action("createInvitationAction", { email: team.emails.viewer, role: "viewer" })).toMatchObject({
      problem: { status: 422 },
    });
  });
});

describe("members", () => {
  it("changes roles (applied to the next request), keeps the last owner, and removes members (their session ends)", async () => {
    const team = await newTeam();
    const { owner, admin, developer } = team.sessions;
    expect((await developer.request("POST", `/${team.live.id}/customers`, { email: "c@example.com" })).status).toBe(403);
    expect(await admin.action("changeMemberRoleAction", { userId: team.ids.developer, role: "admin" })).toMatchObject({ ok: true, role: "admin" });
    expect((await developer.request("POST", `/${team.live.id}/customers`, { email: "c@example.com" })).status).toBe(201);

    // Owners are the owners' business.
    expect(await admin.action("changeMemberRoleAction", { userId: team.ids.owner, role: "viewer" })).toMatchObject({ problem: { status: 403 } });
    expect(await admin.action("changeMemberRoleAction", { userId: team.ids.viewer, role: "owner" })).toMatchObject({ problem: { status: 403 } });
    expect(await admin.action("removeMemberAction", { userId: team.ids.owner })).toMatchObject({ problem: { status: 403 } });

    // The last owner can be neither demoted nor removed; with a second owner, both can.
    expect(await owner.action("changeMemberRoleAction", { userId: team.ids.owner, role: "admin" })).toMatchObject({
      problem: { status: 409, detail: expect.stringMatching(/at least one owner/) },
    });
    expect(await owner.action("removeMemberAction", { userId: team.ids.owner })).toMatchObject({ problem: { status: 409 } });
    expect(await owner.action("changeMemberRoleAction", { userId: team.ids.admin, role: "owner" })).toMatchObject({ ok: true });
    expect(await admin.action("changeMemberRoleAction", { userId: team.ids.owner, role: "viewer" })).toMatchObject({ ok: true });
    expect((await owner.request("POST", `/${team.live.id}/customers`, { email: "c@example.com" })).status).toBe(403);

    expect(await admin.action("removeMemberAction", { userId: team.ids.viewer })).toMatchObject({ ok: true });
    expect((await team.sessions.viewer.request("GET", `/${team.live.id}/customers`)).status).toBe(401);
    const db = await getDb();
    expect(await db.select().from(users).where(eq(users.id, team.ids.viewer))).toEqual([]);
  });
});

describe("SIGNUP", () => {
  let database: Awaited<ReturnType<typeof createMigratedDatabase>>;
  const apps: RunningApp[] = [];
  beforeAll(async () => {
    database = await createMigratedDatabase("teams");
  });
  afterAll(async () => {
    await Promise.all(apps.map((app) => app.stop()));
    await database?.drop();
  });
  const signUpVia = async (app: RunningApp, email: string) =>
    (await callAction(app.baseUrl, "/signup", "signUpAction", { name: "N", company: "C", email, password: PASSWORD })).result;

  it("invite: the first sign-up of an empty instance, then invitations only; the default and closed refuse too, invitations still work", async () => {
    const invite = await startApp({ DATABASE_URL: database.url, SIGNUP: "invite", PLATFORM_BILLING: undefined });
    apps.push(invite);
    const first = uniqueEmail("first");
    expect(await signUpVia(invite, first)).toEqual({ ok: true });
    expect(await signUpVia(invite, uniqueEmail("second"))).toMatchObject({ ok: false, message: /by invitation only/ });
    expect(await (await fetch(`${invite.baseUrl}/signup`)).text()).toContain("Sign-up is by invitation");

    const direct = postgres(database.url, { max: 1, onnotice: () => {} });
    const [account] = await direct<{ id: string }[]>`select a.id from accounts a join users u using (organization_id) where u.email = ${first} and a.livemode`;
    await direct.end();
    const owner = await memberSession(invite.baseUrl, first, account!.id);

    // The production default (next start) with a user: invite. Closed: no sign-up, invitations work.
    const [byDefault, closed] = await Promise.all([
      startApp({ DATABASE_URL: database.url, SIGNUP: undefined, NODE_ENV: "production", PLATFORM_BILLING: undefined }),
      startApp({ DATABASE_URL: database.url, SIGNUP: "closed", PLATFORM_BILLING: undefined }),
    ]);
    apps.push(byDefault, closed);
    expect(await signUpVia(byDefault, uniqueEmail("late"))).toMatchObject({ ok: false, message: /by invitation only/ });
    expect(await signUpVia(closed, uniqueEmail("late"))).toMatchObject({ ok: false, message: /closed/ });
    const invited = uniqueEmail("invited");
    const invitation = await owner.action("createInvitationAction", { email: invited, role: "viewer" });
    const accepted = await callAction(closed.baseUrl, invitation.path!, "acceptInvitationAction", {
      token: invitation.path!.split("/").pop(),
      name: "Invitee",
      password: PASSWORD,
    });
    expect(accepted.result).toEqual({ ok: true, email: invited });
    const session = await signInWithPassword(closed.baseUrl, invited, PASSWORD);
    const read = await api(undefined, apiRoot(closed.baseUrl)).get(`/${account!.id}/customers`, { headers: { Cookie: session } });
    expect(read.status).toBe(200);
    // Three `next start` in the test: 10–25 s each at load 19, so 30 s timed it out (and left two
    // servers running). A hang bound, not a speed claim.
  }, 180_000);

  it("open (the test apps' setting): anyone creates a new organization", async () => {
    expect(await signUpVia({ baseUrl: inject("apiBaseUrl") } as RunningApp, uniqueEmail("open"))).toEqual({ ok: true });
  });
});

describe("npm run user:create", () => {
  const run = (args: string[]) =>
    promisify(execFile)(process.execPath, ["scripts/run.mjs", "scripts/user-create.ts", ...args], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: inject("databaseUrl") },
    }).then(
      ({ stdout }) => ({ code: 0, stdout, stderr: "" }),
      (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
    );

  it("creates an owner and their organization, says so, and refuses an existing email without changing anything", async () => {
    const email = uniqueEmail("operator");
    const created = await run(["--email", email, "--password", PASSWORD, "--name", "Op", "--organization", "Acme"]);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/Created organization "Acme" \(org_prod_[0-9a-z]+\)/);
    expect(created.stdout).toContain(`Created user ${email}`);
    const db = await getDb();
    const [user] = await db.select().from(users).where(eq(users.email, email));
    expect(user).toMatchObject({ role: "owner", name: "Op" });
    expect(await signInWithPassword(inject("apiBaseUrl"), email, PASSWORD)).toMatch(/^next-auth\.session-token=/);

    const again = await run(["--email", email.toUpperCase(), "--password", PASSWORD]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`A user with the email ${email} already exists; nothing was changed.`);
    expect(await db.select().from(users).where(eq(users.email, email))).toHaveLength(1);

    const viewer = await run(["--email", uniqueEmail("seat"), "--password", PASSWORD, "--organization", user!.organizationId, "--role", "viewer"]);
    expect(viewer.code, viewer.stderr).toBe(0);
    expect(viewer.stdout).toMatch(/as viewer/);
    // Three runs of a TypeScript script (tsx compiles it each time): minutes on a busy machine.
  }, 300_000);
});
