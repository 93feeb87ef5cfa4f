import { beforeAll, describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { GRANT_LEVELS, RESOURCES, type GrantLevel, type Permissions, type Resource } from "@/lib/permissions";
import { issueToken } from "@/lib/auth/tokens";
import { api, type ApiResponse, type Json } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually } from "../helpers/receiver";
import { signedInUser } from "../helpers/session";

/*
 * Restricted keys (docs/api.md, "Restricted keys"). The authorization matrix is generated from the
 * OpenAPI document the server serves: every bearer operation × every level of its resource.
 */

type DocumentOperation = { operationId: string; security?: Record<string, string[]>[]; "x-required-permission"?: string; requestBody?: unknown };
type Entry = { operationId: string; method: string; path: string; permission: string | null; hasBody: boolean };

let merchant: Merchant;
let entries: Entry[];
/** `keys["customers"]["read"]`: a key with that level on that resource and none elsewhere. */
const keys = {} as Record<Resource, Record<GrantLevel, string>>;
/** `othersWrite["customers"]`: a key with `write` on every resource but that one. */
const othersWrite = {} as Record<Resource, string>;

async function mint(permissions: Permissions): Promise<string> {
  const issued = await issueToken(await getDb(), { accountId: merchant.accountId, kind: "restricted", name: "matrix", permissions });
  return issued.token;
}

/** A path with the merchant's account and made-up ids: the permission is checked before any lookup. */
function concrete(path: string): string {
  return path.replace("{account_id}", merchant.accountId).replace(/\{(\w+)\}/g, (_, name: string) => `made_up_${name}`);
}

function call(token: string, entry: Entry): Promise<ApiResponse> {
  return api(token).offContract.request(entry.method, concrete(entry.path), entry.hasBody ? { body: {} } : {});
}

/** At most `size` requests at once. */
async function inBatches<T, R>(items: T[], size: number, run: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let at = 0; at < items.length; at += size) results.push(...(await Promise.all(items.slice(at, at + size).map(run))));
  return results;
}

beforeAll(async () => {
  merchant = await newMerchant();
  const document = await merchant.client.offContract.get("/openapi.json");
  expect(document.status).toBe(200);
  const paths = document.body.paths as Record<string, Record<string, DocumentOperation>>;
  entries = Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, operation]) => operation.security?.some((scheme) => "bearerAuth" in scheme))
      .map(([method, operation]) => ({
        operationId: operation.operationId,
        method: method.toUpperCase(),
        path,
        permission: operation["x-required-permission"] ?? null,
        hasBody: operation.requestBody !== undefined,
      })),
  );
  for (const resource of RESOURCES) {
    keys[resource] = {} as Record<GrantLevel, string>;
    for (const level of GRANT_LEVELS) keys[resource][level] = await mint({ [resource]: level });
    othersWrite[resource] = await mint(Object.fromEntries(RESOURCES.filter((other) => other !== resource).map((other) => [other, "write"])));
  }
});

describe("the authorization matrix: every bearer operation of the document × every level of its resource", () => {
  it("a restricted key is allowed exactly what its permission names; refused with 403 and required_permission otherwise", async () => {
    const withPermission = entries.filter((entry) => entry.permission !== null);
    // Both paths of the operations served with and without the account segment.
    expect(withPermission.length).toBeGreaterThan(200);
    const cases = withPermission.flatMap((entry) => {
      const [resource, level] = entry.permission!.split(":") as [Resource, "read" | "write"];
      const levels = GRANT_LEVELS.map((granted) => ({
        entry,
        key: keys[resource][granted],
        label: `${resource}:${granted}`,
        allowed: granted === "write" || granted === level,
      }));
      return [...levels, { entry, key: othersWrite[resource], label: `every resource but ${resource}:write`, allowed: false }];
    });
    const outcomes = await inBatches(cases, 12, async (item) => ({ item, response: await call(item.key, item.entry) }));
    const wrong: string[] = [];
    for (const { item, response } of outcomes) {
      const refused = response.status === 403 && response.body?.required_permission !== undefined;
      const where = `${item.entry.operationId} ${item.entry.method} ${item.entry.path} with ${item.label}`;
      if (item.allowed) {
        // Past the permission check: any answer but a refusal (a made-up id's 404, an empty body's 422…).
        if (refused || response.status === 401) wrong.push(`${where}: ${response.status} ${response.text}`);
      } else if (!refused || response.body.required_permission !== item.entry.permission) {
        wrong.push(`${where}: expected 403 ${item.entry.permission}, got ${response.status} ${response.text.slice(0, 200)}`);
      }
    }
    expect(wrong).toEqual([]);
    // The refusal is the spec's problem body, naming the permission.
    const sample = outcomes.find(({ item }) => !item.allowed)!;
    expectProblem(sample.response, 403, /lacks the permission/);
  });

  it("operations that declare no permission (operator ones) refuse even a key with write on everything", async () => {
    const everything = await mint(Object.fromEntries(RESOURCES.map((resource) => [resource, "write"])));
    const undeclared = entries.filter((entry) => entry.permission === null);
    expect(undeclared.map((entry) => entry.operationId)).toContain("updateBillingStatus");
    for (const entry of undeclared) expectProblem(await call(everything, entry), 403);
  });

  it("a key with write on everything may not manage tokens (dashboard only)", async () => {
    const everything = await mint(Object.fromEntries(RESOURCES.map((resource) => [resource, "write"])));
    expectProblem(await api(everything).offContract.get(`/${merchant.accountId}/api-tokens`), 403, /managed in the dashboard/);
  });
});

describe("restricted keys made on the dashboard's token page (a session on POST /api-tokens)", () => {
  it("creates rk_ keys with permissions, description, expiry and address ranges; refuses bad input", async () => {
    const user = await signedInUser();
    const account = user.live.id;
    const expiresAt = new Date(Date.now() + 86_400_000).toISOString();
    const created = await user.request("POST", `/${account}/api-tokens`, {
      body: {
        name: "reporting",
        kind: "restricted",
        description: "Reads invoices for the warehouse",
        permissions: { invoices: "read", customers: "read" },
        expires_at: expiresAt,
        allowed_ips: ["127.0.0.0/8", "::1/128"],
      },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({
      kind: "restricted",
      status: "active",
      description: "Reads invoices for the warehouse",
      permissions: { invoices: "read", customers: "read" },
      expires_at: expiresAt,
      allowed_ips: ["127.0.0.0/8", "::1/128"],
    });
    expect(created.body.token).toMatch(/^rk_prod_[0-9a-z]{32}$/);
    const key = api(created.body.token as string);
    expect((await key.offContract.get(`/${account}/invoices`)).status).toBe(200);
    expectProblem(await key.offContract.post(`/${account}/customers`, { email: "x@example.com" }), 403);

    // The token page's list: the key, its last use (time and address).
    const listed = await eventually(
      () => user.request("GET", `/${account}/api-tokens`),
      (page) => (page.body.items as Json[]).some((token) => token.id === created.body.id && token.last_used_at !== null),
    );
    const row = (listed.body.items as Json[]).find((token) => token.id === created.body.id)!;
    expect(row.last_used_ip).toMatch(/^(127\.0\.0\.1|::1|::ffff:127\.0\.0\.1)$/);
    expect(row).not.toHaveProperty("token");

    // A missing field is a 400, any other problem a 422 (docs/api.md, "Errors and request ids").
    const bad = async (body: Json, field: string, status = 422) => {
      const answer = await user.request("POST", `/${account}/api-tokens`, { body: { name: "bad", ...body } });
      expect(answer.status, answer.text).toBe(status);
      expect((answer.body.errors as Json[]).map((error) => error.field)).toContain(field);
    };
    await bad({ kind: "restricted" }, "permissions", 400);
    await bad({ kind: "secret", permissions: { invoices: "read" } }, "permissions");
    await bad({ kind: "restricted", permissions: { invoices: "admin" } }, "permissions.invoices");
    await bad({ kind: "restricted", permissions: { ledgers: "read" } }, "permissions.ledgers");
    await bad({ kind: "restricted", permissions: {}, allowed_ips: ["not-a-range"] }, "allowed_ips.0");
    await bad({ kind: "restricted", permissions: {}, expires_at: new Date(Date.now() - 1000).toISOString() }, "expires_at");

    // Creating is an audit event, with the key's permissions and never its secret.
    const secret = await user.request("POST", `/${account}/api-tokens`, { body: { name: "reader", kind: "secret" } });
    const events = await api(secret.body.token as string).offContract.get(`/${account}/events?event_type=api_token.created`);
    const event = (events.body.items as Json[]).find((item) => item.data.id === created.body.id)!;
    expect(event.data.permissions).toEqual({ invoices: "read", customers: "read" });
    expect(event.actor_type).toBe("user");
    expect(JSON.stringify(event)).not.toContain(created.body.token as string);
  });
});

describe("key hygiene", () => {
  it("an expired key answers 401 naming its expiry; a revoked one 401", async () => {
    const user = await signedInUser();
    const account = user.live.id;
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await user.request("POST", `/${account}/api-tokens`, {
      body: { name: "short", kind: "restricted", permissions: { customers: "read" }, expires_at: expiresAt },
    });
    expect(created.status, created.text).toBe(201);
    const key = api(created.body.token as string);
    const expired = await eventually(
      () => key.offContract.get(`/${account}/customers`),
      (answer) => answer.status !== 200,
    );
    expectProblem(expired, 401, new RegExp(`expired at ${expiresAt.replace(/\./g, "\\.")}`));
    expect(expired.body.expired_at).toBe(expiresAt);
    const listed = await user.request("GET", `/${account}/api-tokens`);
    expect((listed.body.items as Json[]).find((token) => token.id === created.body.id)!.status).toBe("expired");

    const revoked = await user.request("POST", `/${account}/api-tokens`, { body: { name: "gone", kind: "restricted", permissions: { customers: "read" } } });
    const revokedKey = api(revoked.body.token as string);
    expect((await revokedKey.offContract.get(`/${account}/customers`)).status).toBe(200);
    expect((await user.request("POST", `/${account}/api-tokens/${revoked.body.id}/revoke`)).status).toBe(200);
    expectProblem(await revokedKey.offContract.get(`/${account}/customers`), 401, /revoked/);
  });

  it("a key used from outside its address ranges is refused; inside them it works", async () => {
    const db = await getDb();
    const base = { accountId: merchant.accountId, kind: "restricted" as const, name: "ranges", permissions: { customers: "read" as const } };
    const outside = await issueToken(db, { ...base, allowedIps: ["10.0.0.0/8"] });
    const inside = await issueToken(db, { ...base, allowedIps: ["10.0.0.0/8", "127.0.0.0/8", "::1/128"] });
    const refused = await api(outside.token).offContract.get(`/${merchant.accountId}/customers`);
    expectProblem(refused, 403, /may not be used from .* its allowed ranges are 10\.0\.0\.0\/8/);
    expect(refused.body.error_code).toBe("ip_not_allowed");
    expect((await api(inside.token).offContract.get(`/${merchant.accountId}/customers`)).status).toBe(200);
  });

  it("rolls a key: the new secret works at once, the old one until the overlap ends (0: at once); api_key.rolled is audited", async () => {
    const user = await signedInUser();
    const account = user.live.id;
    const created = await user.request("POST", `/${account}/api-tokens`, { body: { name: "rolling", kind: "restricted", permissions: { customers: "read" } } });
    const old = api(created.body.token as string);

    const rolled = await user.request("POST", `/${account}/api-tokens/${created.body.id}/roll`, { body: { overlap_seconds: 2 } });
    expect(rolled.status, rolled.text).toBe(200);
    expect(rolled.body).toMatchObject({ id: created.body.id, kind: "restricted", permissions: { customers: "read" } });
    expect(rolled.body.token).toMatch(/^rk_prod_/);
    expect(rolled.body.token).not.toBe(created.body.token);
    const overlapEnds = rolled.body.previous_secret_expires_at as string;
    expect(Date.parse(overlapEnds) - Date.now()).toBeGreaterThan(0);
    const fresh = api(rolled.body.token as string);
    expect((await fresh.offContract.get(`/${account}/customers`)).status).toBe(200);
    expect((await old.offContract.get(`/${account}/customers`)).status).toBe(200);
    const stopped = await eventually(() => old.offContract.get(`/${account}/customers`), (answer) => answer.status !== 200);
    expectProblem(stopped, 401, new RegExp(`rolled and stopped working at ${overlapEnds.replace(/\./g, "\\.")}`));
    expect((await fresh.offContract.get(`/${account}/customers`)).status).toBe(200);

    const again = await user.request("POST", `/${account}/api-tokens/${created.body.id}/roll`, { body: { overlap_seconds: 0 } });
    expect(again.body.previous_secret_expires_at).toBeNull();
    expectProblem(await fresh.offContract.get(`/${account}/customers`), 401, /not valid/);
    expect((await api(again.body.token as string).offContract.get(`/${account}/customers`)).status).toBe(200);

    const tooLong = await user.request("POST", `/${account}/api-tokens/${created.body.id}/roll`, { body: { overlap_seconds: 7 * 86_400 + 1 } });
    expect(tooLong.status).toBe(422);

    const secret = await user.request("POST", `/${account}/api-tokens`, { body: { name: "reader", kind: "secret" } });
    const events = await api(secret.body.token as string).offContract.get(`/${account}/events?event_type=api_key.rolled`);
    const mine = (events.body.items as Json[]).filter((event) => event.data.id === created.body.id);
    expect(mine).toHaveLength(2);
    expect(mine.map((event) => event.actor_type)).toEqual(["user", "user"]);
    expect(JSON.stringify(mine)).not.toMatch(/rk_prod_[0-9a-z]{6}/);
  });

  it("the request log records the key's id", async () => {
    const issued = await issueToken(await getDb(), {
      accountId: merchant.accountId,
      kind: "restricted",
      name: "logged",
      permissions: { logs: "read", customers: "read" },
    });
    const key = api(issued.token);
    const requestId = (await key.offContract.get(`/${merchant.accountId}/customers`)).headers.get("x-request-id")!;
    const logged = await eventually(
      () => key.offContract.get(`/${merchant.accountId}/request-logs/${requestId}`),
      (response) => response.status === 200,
    );
    expect(logged.body.token_id).toBe(issued.id);
  });
});
