import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { getDb } from "@/db/client";
import { idempotencyKeys } from "@/db/schema";
import { requestFingerprint } from "@/lib/idempotency/service";
import { api } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";

const withKey = (key: string) => ({ headers: { "Idempotency-Key": key } });

describe("Idempotency-Key on POST", () => {
  it("replays the first answer for a repeat, creating one customer and one event", async () => {
    const merchant = await newMerchant();
    const body = { email: "once@example.com", name: "Once" };
    const first = await merchant.client.post("/customers", body, withKey("create-once"));
    const second = await merchant.client.post("/customers", body, withKey("create-once"));
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect(first.headers.get("idempotent-replayed")).toBeNull();
    expect(second.headers.get("idempotent-replayed")).toBe("true");
    expect((await merchant.client.get("/customers")).body.total).toBe(1);
    expect((await merchant.client.get(`/${merchant.accountId}/events`)).body.total).toBe(1);
  });

  it("refuses the same key with a different request (422), changing nothing", async () => {
    const merchant = await newMerchant();
    await merchant.client.post("/customers", { email: "a@example.com" }, withKey("k1"));
    const other = await merchant.client.post("/customers", { email: "b@example.com" }, withKey("k1"));
    expectProblem(other, 422, /already used for a different request/);
    expect(other.body.error_code).toBe("idempotency_key_reused");
    const otherPath = await merchant.client.post(`/${merchant.accountId}/customers`, { email: "a@example.com" }, withKey("k1"));
    expectProblem(otherPath, 422);
    expect((await merchant.client.get("/customers")).body.total).toBe(1);
  });

  it("answers 409, retryable, while the first request with the key is still running", async () => {
    const merchant = await newMerchant();
    const body = { email: "slow@example.com" };
    const db = await getDb();
    await db.insert(idempotencyKeys).values({
      accountId: merchant.accountId,
      key: "in-flight",
      fingerprint: requestFingerprint("POST", "/api/customers", JSON.stringify(body)),
      state: "in_progress",
      expiresAt: new Date(Date.now() + 60_000),
    });
    const response = await merchant.client.post("/customers", body, withKey("in-flight"));
    expectProblem(response, 409, /still being processed/);
    expect(response.body).toMatchObject({ error_code: "idempotency_key_in_use", retryable: true });
    expect((await merchant.client.get("/customers")).body.total).toBe(0);
  });

  it("lets concurrent repeats create exactly one customer", async () => {
    const merchant = await newMerchant();
    const body = { email: "race@example.com" };
    const responses = await Promise.all(
      Array.from({ length: 6 }, () => merchant.client.post("/customers", body, withKey("race"))),
    );
    const created = responses.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    for (const response of responses.filter((r) => r.status !== 201)) {
      expect(response.status).toBe(409);
      expect(response.body.error_code).toBe("idempotency_key_in_use");
    }
    expect((await merchant.client.get("/customers")).body.total).toBe(1);
  });

  it("replays domain problems too, but does not consume a key on invalid input", async () => {
    const merchant = await newMerchant();
    const missing = await merchant.client.post("/customers/cus_prod_nope", { name: "x" }, withKey("update-missing"));
    expectProblem(missing, 404);
    const again = await merchant.client.post("/customers/cus_prod_nope", { name: "x" }, withKey("update-missing"));
    expect(again.status).toBe(404);
    expect(again.body).toEqual(missing.body);
    expect(again.headers.get("idempotent-replayed")).toBe("true");

    expectProblem(await merchant.client.post("/customers", { email: "not-an-email" }, withKey("fix-and-retry")), 422);
    expect((await merchant.client.post("/customers", { email: "fixed@example.com" }, withKey("fix-and-retry"))).status).toBe(201);
  });

  it("does not replay a retryable conflict: the retry it asks for runs again", async () => {
    const merchant = await newMerchant();
    const client = api(merchant.sandboxSecret.token);
    const base = `/${merchant.sandboxAccountId}` as const;
    const product = (await client.post(`${base}/products`, { name: "Plan" })).body.id;
    const price = async (unit_amount_atom: number) =>
      (await client.post(`${base}/prices`, { product, currency: "usd", unit_amount_atom, type: "recurring", recurring: { interval: "month" } })).body.id;
    const [basic, pro] = [await price(1000), await price(3000)];
    const customer = (await client.post(`${base}/customers`, { email: "retry@example.com" })).body.id;
    const sub = (await client.post(`${base}/subscriptions`, { customer, items: [{ price: basic, quantity: 1 }] })).body;
    const scr = (
      await client.post(`${base}/subscriptions/${sub.id}/change-requests`, {
        steps: [
          { type: "set_quantity", item: sub.items[0].id, quantity: 2 },
          { type: "switch_price", item: sub.items[0].id, price: pro },
        ],
      })
    ).body;
    const apply = (body: object, key: string) => client.post(`${base}/subscriptions/${sub.id}/change-requests/${scr.id}/apply`, body, withKey(key));
    const failing = { payment_method: "pm_sandbox_succeeds", sandbox_fail_step: 1 };

    const first = await apply(failing, "apply-1");
    expectProblem(first, 409);
    expect(first.body).toMatchObject({ error_code: "PARTIAL_APPLY_RETRYABLE", retryable: true });
    // The same request with the same key runs again (it fails again, by its own instruction) …
    const again = await apply(failing, "apply-1");
    expectProblem(again, 409);
    expect(again.headers.get("idempotent-replayed")).toBeNull();
    expect(again.body.request_id).not.toBe(first.body.request_id);
    // … and once the cause is gone the retry finishes the change.
    const done = await apply({}, "apply-2");
    expect(done.status, done.text).toBe(200);
    expect(done.body.status).toBe("applied");
  });

  it("forgets keys after 24 hours and keeps them per account", async () => {
    const merchant = await newMerchant();
    const other = await newMerchant();
    await merchant.client.post("/customers", { email: "day1@example.com" }, withKey("daily"));
    expect((await other.client.post("/customers", { email: "elsewhere@example.com" }, withKey("daily"))).status).toBe(201);

    const db = await getDb();
    await db
      .update(idempotencyKeys)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(and(eq(idempotencyKeys.accountId, merchant.accountId), eq(idempotencyKeys.key, "daily")));
    const later = await merchant.client.post("/customers", { email: "day2@example.com" }, withKey("daily"));
    expect(later.status).toBe(201);
    expect(later.headers.get("idempotent-replayed")).toBeNull();
    expect((await merchant.client.get("/customers")).body.total).toBe(2);
  });

  it("refuses an unusable key with 400", async () => {
    const merchant = await newMerchant();
    expectProblem(await merchant.client.post("/customers", { email: "x@example.com" }, withKey("k".repeat(256))), 400, /Idempotency-Key/);
    expect((await merchant.client.get("/customers")).body.total).toBe(0);
  });
});
