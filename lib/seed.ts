import { and, eq, isNull } from "drizzle-orm";
import type { Database } from "@/db/client";
import { accounts, apiTokens, users } from "@/db/schema";
import { generatePassword, hashPassword } from "@/lib/auth/passwords";
import { issueToken } from "@/lib/auth/tokens";
import { newId } from "@/lib/ids";
import { createOrganization } from "@/lib/organizations/service";
import { enrollOrganization } from "@/lib/platform/service";
import { realNow } from "@/lib/time";
import { operationPath } from "@/lib/operation-paths";

export const DEMO_EMAIL = "demo@example.com";
const SEED = "seed";

export type SeedResult = {
  account_id: string;
  sandbox_account_id: string;
  secret_token: string;
  publishable_token: string;
  sandbox_secret_token: string;
  dashboard_email: string;
  dashboard_password: string;
};

/**
 * Creates the demo organization (live and sandbox accounts, a dashboard user) once. Tokens and the
 * password are stored only as hashes, so every run issues fresh ones and revokes the previous demo
 * tokens: running it again converges on one demo organization with working credentials.
 */
export async function seedDemo(db: Database): Promise<SeedResult> {
  const password = generatePassword();
  const passwordHash = await hashPassword(password);
  const { result, organizationId } = await db.transaction(async (tx) => {
    let [user] = await tx.select().from(users).where(eq(users.email, DEMO_EMAIL));
    if (!user) {
      const { organizationId } = await createOrganization(tx, { name: "Demo Company" });
      [user] = await tx
        .insert(users)
        .values({ id: newId("user"), organizationId, email: DEMO_EMAIL, name: "Demo User", passwordHash })
        .returning();
    } else {
      await tx.update(users).set({ passwordHash }).where(eq(users.id, user.id));
    }
    const organizationAccounts = await tx
      .select()
      .from(accounts)
      .where(eq(accounts.organizationId, user!.organizationId))
      .orderBy(accounts.created, accounts.id);
    const live = organizationAccounts.find((account) => account.livemode)!;
    const sandbox = organizationAccounts.find((account) => !account.livemode)!;

    for (const account of [live, sandbox]) {
      await tx
        .update(apiTokens)
        .set({ revokedAt: realNow() })
        .where(and(eq(apiTokens.accountId, account.id), eq(apiTokens.createdBy, SEED), isNull(apiTokens.revokedAt)));
    }
    const secret = await issueToken(tx, { accountId: live.id, kind: "secret", name: "Demo secret token", createdBy: SEED });
    const publishable = await issueToken(tx, {
      accountId: live.id,
      kind: "publishable",
      name: "Demo publishable token",
      createdBy: SEED,
    });
    const sandboxSecret = await issueToken(tx, {
      accountId: sandbox.id,
      kind: "secret",
      name: "Demo sandbox secret token",
      createdBy: SEED,
    });
    return {
      organizationId: user!.organizationId,
      result: {
        account_id: live.id,
        sandbox_account_id: sandbox.id,
        secret_token: secret.token,
        publishable_token: publishable.token,
        sandbox_secret_token: sandboxSecret.token,
        dashboard_email: DEMO_EMAIL,
        dashboard_password: password,
      },
    };
  });
  // The demo organization is enrolled like any new organization: trialing when platform billing is
  // on, nothing otherwise (idempotent on re-runs).
  await enrollOrganization({ organizationId, email: DEMO_EMAIL, name: "Demo Company" });
  return result;
}

export function describeSeed(result: SeedResult, baseUrl: string): string {
  return [
    "Demo organization ready:",
    `  Dashboard        ${baseUrl}  (sign in as ${result.dashboard_email} / ${result.dashboard_password})`,
    `  Live account     ${result.account_id}`,
    `  Secret token     ${result.secret_token}`,
    `  Publishable      ${result.publishable_token}`,
    `  Sandbox account  ${result.sandbox_account_id}`,
    `  Sandbox secret   ${result.sandbox_secret_token}`,
    "",
    "  Try it:",
    `  curl -s ${baseUrl}${operationPath("createCustomerForTokenAccount")} -H "Authorization: Bearer ${result.secret_token}" \\`,
    `    -H "Content-Type: application/json" -d '{"email":"jenny@example.com","name":"Jenny Rosen"}'`,
    `  curl -s "${baseUrl}${operationPath("listEvents", { account_id: result.account_id })}" -H "Authorization: Bearer ${result.secret_token}"`,
  ].join("\n");
}
