import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { expect, test, type Page } from "@playwright/test";
import { createFreshDatabase } from "../tests/helpers/database";
import { PROJECT_ROOT, startApp, startDevApp, type RunningApp } from "../tests/helpers/server";
import { RATE_LIMIT_TEST_ENV } from "../tests/setup/api-server";
import { bypassHeaders } from "./bypass";
import { baseUrl, signUp } from "./fixtures";
import { authUrl } from "../tests/helpers/sign-in";

/**
 * Issue 27: the first sign-in on a freshly started server bounced back to an empty sign-in form.
 * These specs start their own server on a fresh database (so they run the same against a
 * deployment), seed its demo login from outside the server, and sign in once: the first request
 * the browser makes to the server is the sign-in page.
 */

const run = promisify(execFile);

type Login = { account_id: string; dashboard_email: string; dashboard_password: string };

/** `timeout`: how long a page may take to appear (`next dev` compiles each on its first request). */
async function signInOnce(page: Page, base: string, login: Login, timeout?: number) {
  await page.goto(`${base}/signin`);
  // The form is usable once hydrated (its button is disabled until then).
  await expect(page.getByRole("button", { name: "Sign in" })).toBeEnabled({ timeout });
  await page.getByLabel("Email").fill(login.dashboard_email);
  await page.getByLabel("Password").fill(login.dashboard_password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${base}/accounts/${login.account_id}`, { timeout });
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible({ timeout });
}

/** A fresh database with the seed's demo login, a server started on it, one sign-in. */
async function firstSignIn(page: Page, start: typeof startApp, timeout?: number) {
  const database = await createFreshDatabase("first_sign_in");
  let app: RunningApp | undefined;
  try {
    const { stdout } = await run("npm", ["run", "--silent", "seed", "--", "--json"], {
      cwd: PROJECT_ROOT,
      env: { ...process.env, DATABASE_URL: database.url },
    });
    const login = JSON.parse(stdout) as Login;
    app = await start({
      DATABASE_URL: database.url,
      NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
      WEBHOOK_SECRET_KEY: randomBytes(32).toString("base64url"),
      ...RATE_LIMIT_TEST_ENV,
    });
    await signInOnce(page, app.baseUrl, login, timeout);
  } finally {
    await app?.stop();
    await database.drop();
  }
}

test("the first sign-in on a freshly started production server succeeds at the first attempt", async ({ page }) => {
  // A fresh database, a seed and a `next start`: none of it is the sign-in's own time.
  test.setTimeout(240_000);
  await firstSignIn(page, startApp);
});

test("the first sign-in on a freshly started `next dev` server succeeds at the first attempt", async ({ page }) => {
  // `next dev` compiles the sign-in page, next-auth's routes and the dashboard on their first
  // request (the moment the sign-in used to bounce); on a loaded machine that takes minutes.
  test.setTimeout(600_000);
  await firstSignIn(page, startDevApp, 240_000);
});

test("a CSRF cookie that changed under the form does not bounce a correct sign-in", async ({ page, browser }) => {
  const merchant = await signUp(page);
  const context = await browser.newContext();
  const fresh = await context.newPage();
  // What a concurrent next-auth call does on a server's first requests: it sets another CSRF
  // cookie, so the token the form fetched no longer matches the cookie its POST carries. Here the
  // first POST carries the token of another cookie instead: next-auth gives the same answer.
  const other = (await (await fetch(authUrl(baseUrl(), "/csrf"), { headers: bypassHeaders() })).json()) as { csrfToken: string };
  let posts = 0;
  await fresh.route("**/api/auth/callback/credentials", async (route) => {
    if (posts++ > 0) return route.continue();
    const body = new URLSearchParams(route.request().postData() ?? "");
    expect(body.get("csrfToken")).not.toBe(other.csrfToken);
    body.set("csrfToken", other.csrfToken);
    await route.continue({ postData: body.toString() });
  });
  await signInOnce(fresh, baseUrl(), { account_id: merchant.accountId, dashboard_email: merchant.email, dashboard_password: merchant.password });
  // The stale token was refused once (the race happened), and the form retried it by itself.
  expect(posts).toBe(2);
  // No message was shown (Next.js's route announcer is an empty alert of its own).
  await expect(fresh.getByRole("alert").filter({ hasText: /\S/ })).toHaveCount(0);
  await context.close();
});
