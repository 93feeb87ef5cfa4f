import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { organizationAccounts } from "@/lib/auth/users";
import { signUp } from "@/lib/teams/users";
import { processCpuMs, startApp, type RunningApp } from "../helpers/server";
import { callAction } from "../helpers/server-action";
import { signedInUser } from "../helpers/session";
import { authUrl } from "../helpers/sign-in";
import { api } from "../helpers/api";

const cookiesOf = (response: Response) => response.headers.getSetCookie().map((c) => c.split(";")[0]!);

/** next-auth's credentials sign-in over HTTP: the session cookie, or the error it answered. */
async function signIn(base: string, email: string, password: string): Promise<{ session?: string; error?: string }> {
  const csrf = await fetch(authUrl(base, "/csrf"));
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const callback = await fetch(authUrl(base, "/callback/credentials"), {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookiesOf(csrf).join("; ") },
    body: new URLSearchParams({ csrfToken, email, password, json: "true" }),
  });
  const session = cookiesOf(callback).find((c) => c.startsWith("next-auth.session-token="));
  const location = callback.headers.get("location") ?? ((await callback.json().catch(() => ({}))) as { url?: string }).url ?? "";
  const error = new URL(location, base).searchParams.get("error") ?? undefined;
  return { session, error };
}

/** Whether a session cookie names a signed-in user (next-auth's session endpoint). */
async function sessionUser(base: string, cookie: string): Promise<string | undefined> {
  const response = await fetch(authUrl(base, "/session"), { headers: { Cookie: cookie } });
  return ((await response.json()) as { user?: { id?: string } }).user?.id || undefined;
}

const changePasswordOverHttp = (base: string, accountId: string, cookie: string, input: { currentPassword: string; newPassword: string }) =>
  callAction(base, `/accounts/${accountId}/settings`, "changePasswordAction", input, cookie);

describe("dashboard sessions", () => {
  it("signing out ends the session on the server: the same cookie no longer works", async () => {
    const base = inject("apiBaseUrl");
    const { live, request } = await signedInUser();
    expect((await request("GET", `/${live.id}/customers`)).status).toBe(200);

    // The cookie the browser held, kept by an attacker (or another tab) before signing out.
    const email = `out-${randomBytes(4).toString("hex")}@example.com`;
    await signUp({ name: "Out", company: "Out Co", email, password: "correct horse battery staple" });
    const { session } = await signIn(base, email, "correct horse battery staple");
    expect(session).toBeDefined();
    const before = await fetch(authUrl(base, "/session"), { headers: { Cookie: session! } });
    expect(((await before.json()) as { user?: { organizationId: string } }).user?.organizationId).toMatch(/^org_/);
    const home = await fetch(`${base}/`, { headers: { Cookie: session! }, redirect: "manual" });
    expect(home.headers.get("location")).toMatch(/\/accounts\//);

    const csrf = await fetch(authUrl(base, "/csrf"), { headers: { Cookie: session! } });
    const { csrfToken } = (await csrf.json()) as { csrfToken: string };
    const out = await fetch(authUrl(base, "/signout"), {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: [session!, ...cookiesOf(csrf)].join("; ") },
      body: new URLSearchParams({ csrfToken, json: "true" }),
    });
    expect(out.status).toBeLessThan(400);

    const replayed = await fetch(authUrl(base, "/session"), { headers: { Cookie: session! } });
    expect(await replayed.json()).not.toHaveProperty("user.organizationId", expect.stringMatching(/.+/));
    const page = await fetch(`${base}/`, { headers: { Cookie: session! }, redirect: "manual" });
    expect(page.headers.get("location")).toMatch(/\/signin$/);
  });

  it("changing the password ends every other session at once and keeps the one that changed it", async () => {
    const base = inject("apiBaseUrl");
    const email = `pw-${randomBytes(4).toString("hex")}@example.com`;
    const user = await signUp({ name: "Pw", company: "Pw Co", email, password: "correct horse battery staple" });
    const [live] = await organizationAccounts(user.organizationId);
    const here = (await signIn(base, email, "correct horse battery staple")).session!;
    const elsewhere = (await signIn(base, email, "correct horse battery staple")).session!;
    expect(await sessionUser(base, here)).toBe(user.id);
    expect(await sessionUser(base, elsewhere)).toBe(user.id);

    // A wrong current password changes nothing and ends nothing.
    const refused = await changePasswordOverHttp(base, live!.id, here, { currentPassword: "not the password", newPassword: "a brand new passphrase" });
    expect(refused.result).toMatchObject({ ok: false, errors: [{ field: "currentPassword" }] });
    const tooShort = await changePasswordOverHttp(base, live!.id, here, { currentPassword: "correct horse battery staple", newPassword: "short" });
    expect(tooShort.result).toMatchObject({ ok: false, errors: [{ field: "newPassword" }] });
    expect(await sessionUser(base, elsewhere)).toBe(user.id);

    const changed = await changePasswordOverHttp(base, live!.id, here, { currentPassword: "correct horse battery staple", newPassword: "a brand new passphrase" });
    expect(changed.result).toEqual({ ok: true, signedIn: true });
    // The other session has ended, and so has this cookie as it was; its re-issued form goes on.
    expect(await sessionUser(base, elsewhere)).toBeUndefined();
    expect(await sessionUser(base, here)).toBeUndefined();
    expect(changed.renewed).toBeDefined();
    expect(await sessionUser(base, changed.renewed!)).toBe(user.id);
    const page = await fetch(`${base}/accounts/${live!.id}/customers`, { headers: { Cookie: changed.renewed! }, redirect: "manual" });
    expect(page.status).toBe(200);

    expect((await signIn(base, email, "correct horse battery staple")).error).toBe("CredentialsSignin");
    expect((await signIn(base, email, "a brand new passphrase")).session).toBeDefined();
  });

  it("sends security headers on dashboard pages", async () => {
    const response = await fetch(`${inject("apiBaseUrl")}/signin`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toMatch(/frame-ancestors 'none'/);
    expect(response.headers.get("content-security-policy")).toMatch(/object-src 'none'/);
    expect(response.headers.get("x-frame-options")).toBe("DENY");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
  });

  it("does not trust a client's X-Forwarded-Host in the same-origin check", async () => {
    const { live, request, cookie } = await signedInUser();
    const forged = await api().post(
      `/${live.id}/customers`,
      { email: "csrf@example.com" },
      { headers: { Cookie: cookie, Origin: "https://evil.example", "X-Forwarded-Host": "evil.example" } },
    );
    expect(forged.status).toBe(403);
    expect((await request("GET", `/${live.id}/customers`)).body.total).toBe(0);
  });
});

describe("sign-in throttling", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ DATABASE_URL: inject("databaseUrl"), RATE_LIMIT_SIGN_IN_PER_MINUTE: "3" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("refuses further attempts for an email after 3 a minute, even with the right password", async () => {
    const email = `throttle-${randomBytes(4).toString("hex")}@example.com`;
    await signUp({ name: "T", company: "T Co", email, password: "correct horse battery staple" });
    for (let i = 0; i < 3; i++) expect((await signIn(app.baseUrl, email, "wrong password!")).error).toBe("CredentialsSignin");
    const blocked = await signIn(app.baseUrl, email, "correct horse battery staple");
    expect(blocked.session).toBeUndefined();
    expect(blocked.error).toMatch(/Too many attempts/);
  });

  it("refuses an unknown email at the cost of a wrong password (no timing oracle)", async () => {
    const email = `timing-${randomBytes(4).toString("hex")}@example.com`;
    await signUp({ name: "T", company: "T Co", email, password: "correct horse battery staple" });
    // The server's CPU time for an attempt, not its wall time: what an attacker's clock would see
    // on a quiet server, and a figure a loaded test machine does not distort (a wall-clock ratio
    // failed there once: 176 ms against 477 ms, the known email's attempts slowed by other work).
    const cpuOf = async (address: string) => {
      const before = processCpuMs(app.pid);
      const { error } = await signIn(app.baseUrl, address, "wrong password!");
      expect(error).toBe("CredentialsSignin");
      return processCpuMs(app.pid) - before;
    };
    // Two attempts each (the limit is 3 per email); the scrypt hash (tens of milliseconds of CPU) dominates both.
    const known = (await cpuOf(email)) + (await cpuOf(email));
    const unknown = (await cpuOf(`nobody-${randomBytes(4).toString("hex")}@example.com`)) + (await cpuOf(`nobody-${randomBytes(4).toString("hex")}@example.com`));
    // Without the dummy hash an unknown email's two attempts cost the server 40 ms of CPU against 240 ms.
    expect(known, "a wrong password's two attempts cost the server a hash each").toBeGreaterThanOrEqual(40);
    expect(unknown).toBeGreaterThan(known * 0.5);
  });
});

describe("password-change throttling", () => {
  // Its own app and limit (the limit is part of the counters' keys): the sign-in tests above use
  // up their per-address allowance (3 × 3 a minute).
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ DATABASE_URL: inject("databaseUrl"), RATE_LIMIT_SIGN_IN_PER_MINUTE: "4" });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("throttles password changes like sign-in attempts (per email)", async () => {
    const email = `pw-throttle-${randomBytes(4).toString("hex")}@example.com`;
    const user = await signUp({ name: "T", company: "T Co", email, password: "correct horse battery staple" });
    const [live] = await organizationAccounts(user.organizationId);
    const { session } = await signIn(app.baseUrl, email, "correct horse battery staple");
    const attempt = (currentPassword: string) =>
      changePasswordOverHttp(app.baseUrl, live!.id, session!, { currentPassword, newPassword: "a brand new passphrase" });
    // The sign-in took one of the 4 a minute; three guesses take the rest.
    for (let i = 0; i < 3; i++) expect((await attempt("a wrong guess")).result).toMatchObject({ ok: false, errors: [{ field: "currentPassword" }] });
    const blocked = await attempt("correct horse battery staple");
    expect(blocked.result).toMatchObject({ ok: false, message: expect.stringMatching(/Too many attempts/) });
    expect((await signIn(app.baseUrl, email, "a brand new passphrase")).error).toMatch(/Too many attempts/);
  });

  it("throttles sign-up per email like sign-in", async () => {
    const email = `signup-throttle-${randomBytes(4).toString("hex")}@example.com`;
    const attempt = () => callAction(app.baseUrl, "/signup", "signUpAction", { name: "S", company: "S Co", email, password: "correct horse battery staple" });
    expect((await attempt()).result).toEqual({ ok: true });
    for (let i = 0; i < 3; i++) expect((await attempt()).result).toMatchObject({ ok: false, message: expect.stringMatching(/already exists/) });
    expect((await attempt()).result).toMatchObject({ ok: false, message: expect.stringMatching(/Too many attempts/) });
  });
});
