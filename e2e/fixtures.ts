import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { expect, type Page } from "@playwright/test";
import { apiRoot, createApiClient } from "../tests/helpers/api-client";
import { Receiver } from "../tests/helpers/receiver";
import { freePort } from "../tests/helpers/server";
import { bypassHeaders } from "./bypass";
import { Listener } from "./listener";

/** The app under test: the local one from global-setup, or a deployment (E2E_BASE_URL). */
export function baseUrl(): string {
  const url = process.env.E2E_BASE_URL;
  if (!url) throw new Error("E2E_BASE_URL is not set: run through playwright.config.ts.");
  return url.replace(/\/$/, "");
}

/**
 * Whether the app under test can POST webhooks to this machine: only the app e2e/global-setup.ts
 * starts (it allows loopback receivers). A deployment (E2E_BASE_URL, including the stand-in of
 * `npm run test:e2e:deployment`) cannot, as a remote one cannot: the webhook steps then receive
 * through `npm run listen` and check delivery outcomes against an endpoint it refuses.
 */
export function deliversHere(): boolean {
  return process.env.E2E_APP_STARTED_HERE === "1";
}

/**
 * An HTTPS receiver on loopback that the app under test delivers to directly. Only when
 * `deliversHere()`: a deployment cannot reach it (use `startListener`).
 */
export function startReceiver(): Promise<Receiver> {
  if (!deliversHere()) throw new Error("A deployment cannot reach a loopback receiver: receive through startListener().");
  return Receiver.start();
}

/** The token's account's events, pulled from the API by `npm run listen` and forwarded to a loopback receiver. */
export function startListener(token: string, events?: string[]): Promise<Listener> {
  return Listener.start({ apiBaseUrl: apiRoot(baseUrl()), token, events });
}

/**
 * An endpoint URL no delivery can succeed at: a name for this machine where nothing listens. A
 * deployment refuses it at send time as a non-public address (a permanent failure, "Refused to
 * deliver to the non-public address …"); the local app, which allows loopback, gets "connection
 * refused". Accepted when the endpoint is made: a deployment refuses `localhost` and IP literals
 * then, so it gets the machine's own host name (which resolves to this machine, a non-public
 * address), checked only at send time.
 */
export async function unreachableUrl(): Promise<string> {
  return `https://${deliversHere() ? "localhost" : hostname()}:${await freePort()}/webhooks`;
}

export type Merchant = { email: string; password: string; accountId: string };

/** Signs up a new organization through the UI and returns its live account (from the URL). */
export async function signUp(page: Page, company = "Acme", base = baseUrl()): Promise<Merchant> {
  const email = `e2e-${randomBytes(6).toString("hex")}@example.com`;
  const password = `pw-${randomBytes(9).toString("base64url")}`;
  await page.goto(`${base}/signup`);
  // The form is usable once hydrated (its button is disabled until then).
  await expect(page.getByRole("button", { name: "Create account" })).toBeEnabled();
  await page.getByLabel("Your name").fill("Ada Merchant");
  await page.getByLabel("Company").fill(company);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.waitForURL(/\/accounts\/acc_[a-z]+_[0-9a-z]+$/);
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  const accountId = new URL(page.url()).pathname.split("/")[2]!;
  return { email, password, accountId };
}

/** Creates an API token in the dashboard and returns the full token, read from the once-only display. */
export async function createToken(
  page: Page,
  merchant: Merchant,
  name: string,
  kind: "Secret" | "Publishable" = "Secret",
  base = baseUrl(),
) {
  await page.goto(`${base}/accounts/${merchant.accountId}/tokens`);
  await page.getByLabel("Name").fill(name);
  await page.getByLabel("Kind").selectOption({ label: kind });
  await page.getByRole("button", { name: "Create token" }).click();
  const token = (await page.getByTestId("shown-once-value").textContent())?.trim() ?? "";
  expect(token).toMatch(kind === "Secret" ? /^st_[a-z]+_[0-9a-z]{32}$/ : /^pt_[a-z]+_[0-9a-z]{32}$/);
  return token;
}

/**
 * The REST API with a bearer token, as a merchant's server calls it: the API tests' typed client
 * (tests/helpers/api-client.ts), so every response is checked against the OpenAPI document.
 */
export function api(token: string, base = baseUrl()) {
  return createApiClient(apiRoot(base), token, bypassHeaders());
}

/** The REST API as the dashboard calls it: the page's session cookie and this site's Origin. */
export async function sessionApi(page: Page, base = baseUrl()) {
  const cookie = (await page.context().cookies(base)).map((c) => `${c.name}=${c.value}`).join("; ");
  return createApiClient(apiRoot(base), undefined, { ...bypassHeaders(), Cookie: cookie, Origin: base });
}
