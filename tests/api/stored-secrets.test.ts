import { execFile } from "node:child_process";
import { randomBytes, randomInt } from "node:crypto";
import { promisify } from "node:util";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { issueToken } from "@/lib/auth/tokens";
import { organizationAccounts } from "@/lib/auth/users";
import { signUp } from "@/lib/teams/users";
import { api, apiRoot, type ApiResponse } from "../helpers/api";
import { eventually, refusedUrl } from "../helpers/receiver";
import { startApp, type RunningApp } from "../helpers/server";
import { callAction } from "../helpers/server-action";
import { memberSession, PASSWORD, uniqueEmail } from "../helpers/team";

/*
 * One redaction for everything stored (docs/security.md, "What is stored"): each kind of secret is
 * planted in each place a request or its answer reaches storage (the request log's path, query,
 * headers and bodies; idempotency keys and stored answers; rate-limit keys; events' correlation id
 * and audit metadata; error messages), then a `pg_dump` of the whole database and the app's own
 * output are searched for it: 0 hits. The app is this file's own, so its output is this test's.
 */
const execFileAsync = promisify(execFile);
const sql = postgres(inject("databaseUrl"), { max: 1, onnotice: () => {} });
afterAll(() => sql.end({ timeout: 5 }));

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ DATABASE_URL: inject("databaseUrl"), REQUEST_LOG_FLUSH_MS: "200" });
});
afterAll(async () => {
  await app?.stop();
});

/** A 16-digit number that passes the Luhn check (what a card number looks like). */
function cardNumber(): string {
  const digits = Array.from({ length: 15 }, (_, i) => (i === 0 ? 4 : randomInt(10)));
  let sum = 0;
  for (let i = 0; i < 15; i++) {
    let digit = digits[14 - i]!;
    if (i % 2 === 0) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return [...digits, (10 - (sum % 10)) % 10].join("");
}

describe("secrets never reach storage or the log", () => {
  it("plants every kind of secret in every stored place and finds none in a pg_dump or the app's output", async () => {
    const root = apiRoot(app.baseUrl);
    const ownerEmail = uniqueEmail("secrets");
    const owner = await signUp({ name: "Owner", company: "Secret Co", email: ownerEmail, password: PASSWORD });
    const [live] = await organizationAccounts(owner.organizationId);
    const accountId = live!.id;
    const secretToken = await issueToken(await getDb(), { accountId, kind: "secret", name: "planted" });
    const publishable = await issueToken(await getDb(), { accountId, kind: "publishable", name: "planted publishable" });
    const client = api(secretToken.token, root);
    const session = await memberSession(app.baseUrl, ownerEmail, accountId);

    // Real secrets of every kind the service hands out.
    const endpoint = await client.post(`/${accountId}/webhook-endpoints`, { url: await refusedUrl(), events: ["*"] });
    expect(endpoint.status, endpoint.text).toBe(201);
    const whsec = endpoint.body.secret as string;
    expect(whsec).toMatch(/^whsec_/);
    const invitation = await session.action("createInvitationAction", { email: uniqueEmail("planted"), role: "owner" });
    expect(invitation.ok, JSON.stringify(invitation)).toBe(true);
    const inviteToken = invitation.path!.split("/").pop()!;
    const customer = await client.post(`/${accountId}/customers`, { email: "portal-owner@example.com" });
    expect(customer.status, customer.text).toBe(201);
    const portalKey = `portal-${randomBytes(6).toString("hex")}`;
    const portal = await client.post(`/${accountId}/portal-sessions`, { customer: customer.body.id }, { headers: { "Idempotency-Key": portalKey } });
    expect(portal.status, portal.text).toBe(201);
    const portalUrl = portal.body.url as string;
    const portalToken = portalUrl.split("/").pop()!;
    const hostedToken = randomBytes(32).toString("base64url");
    const password = `pw-${randomBytes(12).toString("hex")}`;
    const card = cardNumber();

    // A replay of the capability-minting request answers the object without the link, and mints nothing new.
    const replay = await client.post(`/${accountId}/portal-sessions`, { customer: customer.body.id }, { headers: { "Idempotency-Key": portalKey } });
    expect(replay.status).toBe(201);
    expect(replay.headers.get("idempotent-replayed")).toBe("true");
    expect(replay.body).toMatchObject({ id: portal.body.id, url: expect.stringMatching(/^\[redacted/) });

    /**
     * Each secret (`value`, what is searched for) and how it is planted (`inUrl`): a capability
     * link's token is recognisable by its link, so it is planted as the link's path.
     */
    const secrets: Record<string, { value: string; inUrl: string }> = {
      "secret token": { value: secretToken.token, inUrl: secretToken.token },
      "publishable token": { value: publishable.token, inUrl: publishable.token },
      "signing secret": { value: whsec, inUrl: whsec },
      "invitation token": { value: inviteToken, inUrl: inviteToken },
      "invitation link": { value: inviteToken, inUrl: `invite/${inviteToken}` },
      "portal link": { value: portalToken, inUrl: portalUrl.replace(/^https?:\/\/[^/]+\//, "") },
      "hosted invoice link": { value: hostedToken, inUrl: `invoice/${hostedToken}` },
      "card number": { value: card, inUrl: card },
    };

    const sent: ApiResponse[] = [];
    const send = async (response: Promise<ApiResponse>) => sent.push(await response);
    for (const [kind, { value, inUrl }] of Object.entries(secrets)) {
      // Path: as is, and percent-encoded (every `_` and `/` escaped, as a client library may).
      const encoded = encodeURIComponent(inUrl).replace(/_/g, "%5F");
      await send(client.offContract.get(`/customers/${inUrl}`));
      await send(client.offContract.get(`/customers/${encoded}`));
      await send(client.offContract.get(`/${accountId}/customers/${encoded}`));
      // Query (a refused parameter is quoted back in the problem).
      await send(client.offContract.get(`/${accountId}/customers?limit=${encodeURIComponent(inUrl)}&note=${encoded}&password=${password}`));
      // Headers the log keeps and events store, on a change that emits events and is keyed.
      const headers = {
        "User-Agent": `planted /${inUrl}`,
        "X-Correlation-Id": `corr-/${inUrl}`.slice(0, 200),
        "Idempotency-Key": `key-/${inUrl}`.slice(0, 255),
        Referer: `https://example.com/${inUrl}`,
      };
      await send(client.post(`/${accountId}/customers`, { email: `${kind.replace(/ /g, "-")}@example.com` }, { headers }));
      // An audit event (its metadata keeps the user agent).
      await send(client.post(`/${accountId}/webhook-endpoints`, { url: await refusedUrl(), events: ["*"] }, { headers: { "User-Agent": `planted /${inUrl}` } }));
      // Bodies of a refused request: JSON (by value, and under field names) and not JSON.
      await send(client.offContract.post(`/${accountId}/customers`, { email: "not an email", name: `/${inUrl}`, note: inUrl, metadata: { password, card_number: card } }));
      await send(client.offContract.request("POST", `/${accountId}/customers`, { rawBody: `name=/${inUrl}&password=${password}`, headers: { "Content-Type": "application/json" } }));
      // A stored keyed answer whose problem quotes the input.
      await send(client.post(`/${accountId}/portal-sessions`, { customer: `/${inUrl}` }, { headers: { "Idempotency-Key": `bad-${randomBytes(4).toString("hex")}` } }));
      // Rate-limit keys: accepting an invitation counts per link.
      const attempt = await callAction(app.baseUrl, `/invite/${inviteToken}`, "acceptInvitationAction", { token: kind === "invitation token" ? inviteToken : value, name: "X", password: "short" });
      expect(attempt.result).toMatchObject({ ok: false });
    }
    // Nothing a client sent became a 5xx.
    expect(sent.filter((response) => response.status >= 500).map((response) => response.text)).toEqual([]);
    // The request log writes off the request's path: wait for the last request's row.
    const lastId = sent.at(-1)!.headers.get("x-request-id")!;
    await eventually(async () => (await sql`select 1 from request_logs where id = ${lastId}`).length, (found) => found === 1);

    const { stdout: dump } = await execFileAsync("pg_dump", ["--data-only", "--no-owner", inject("databaseUrl")], { maxBuffer: 1024 * 1024 * 1024 });
    expect(dump).toContain(accountId);
    const output = app.output();
    const found: string[] = [];
    /** Where in the dump a value was found: the text around it. */
    const around = (value: string) => {
      const at = dump.indexOf(value);
      return dump.slice(Math.max(0, at - 200), at + value.length + 50);
    };
    for (const [kind, { value }] of Object.entries(secrets)) {
      if (dump.includes(value)) found.push(`${kind} in the database: ${around(value)}`);
      if (output.includes(value)) found.push(`${kind} in the app's output`);
    }
    for (const [kind, value] of [["password", password], ["portal URL", portalUrl]] as const) {
      if (dump.includes(value)) found.push(`${kind} in the database: ${around(value)}`);
      if (output.includes(value)) found.push(`${kind} in the app's output`);
    }
    expect(found).toEqual([]);

    // What a viewer of the request log sees of a path that held a token: the path, censored.
    const logged = await client.get(`/${accountId}/request-logs/${sent[0]!.headers.get("x-request-id")}`);
    expect(logged.status, logged.text).toBe(200);
    expect(logged.body.path).toBe(`${new URL(root).pathname.replace(/\/$/, "")}/customers/[redacted]`);
  });
});
