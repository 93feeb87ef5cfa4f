import { randomBytes } from "node:crypto";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { organizations, users } from "@/db/schema";
import { organizationAccounts } from "@/lib/auth/users";
import { startApp, type RunningApp } from "../helpers/server";
import { callAction } from "../helpers/server-action";
import { signInWithPassword } from "../helpers/sign-in";
import { newOperator } from "../helpers/operator";
import { api, apiRoot } from "../helpers/api";

/**
 * A self-hosted install: PLATFORM_BILLING unset. The app is started without it (the shared app
 * has it on); sign-up goes through that app, as the dashboard's form does.
 */
describe("platform billing off (the default)", () => {
  let app: RunningApp;
  beforeAll(async () => {
    app = await startApp({ DATABASE_URL: inject("databaseUrl"), PLATFORM_BILLING: undefined });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("bills no new organization: no platform customer or subscription, and payments are allowed", async () => {
    const email = `self-hosted-${randomBytes(4).toString("hex")}@example.com`;
    const password = "correct horse battery staple";
    const { result } = await callAction(app.baseUrl, "/signup", "signUpAction", { name: "Owner", company: "Own Co", email, password });
    expect(result).toEqual({ ok: true });

    const db = await getDb();
    const [user] = await db.select().from(users).where(eq(users.email, email));
    const [organization] = await db.select().from(organizations).where(eq(organizations.id, user!.organizationId));
    expect(organization!.platformCustomerId).toBeNull();

    const session = await signInWithPassword(app.baseUrl, email, password);
    for (const account of await organizationAccounts(organization!.id)) {
      const response = await api(undefined, apiRoot(app.baseUrl)).get(`/${account.id}/billing-status`, { headers: { Cookie: session } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        cit_allowed: true,
        mit_allowed: true,
        cit_processing_enabled: true,
        mit_processing_enabled: true,
        billing_status: "exempt",
        trial_days_remaining: null,
        trial_end: null,
        subscription_end: null,
      });
    }
  });

  it("still honours the operator's switches: processing turned off is not allowed", async () => {
    const email = `self-hosted-${randomBytes(4).toString("hex")}@example.com`;
    const password = "correct horse battery staple";
    await callAction(app.baseUrl, "/signup", "signUpAction", { name: "Owner", company: "Own Co", email, password });
    const db = await getDb();
    const [user] = await db.select().from(users).where(eq(users.email, email));
    const [live] = await organizationAccounts(user!.organizationId);
    const operator = await newOperator();
    const response = await api(operator.token, apiRoot(app.baseUrl)).post(`/${live!.id}/billing-status`, { mit_processing_enabled: false });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ billing_status: "exempt", cit_allowed: true, mit_allowed: false, platform_customer: null });
  });
});
