import { eq } from "drizzle-orm";
import { getDb } from "@/db/client";
import { apiTokens, organizations } from "@/db/schema";
import { issueToken } from "@/lib/auth/tokens";
import { createOrganization } from "@/lib/organizations/service";
import { enrollOrganization } from "@/lib/platform/service";
import { expect } from "vitest";
import { api, type Json } from "./api";

let counter = 0;

/** A new organization with its live and sandbox accounts and tokens, isolated from other tests. */
export async function newMerchant(name = `Merchant ${++counter}`) {
  const db = await getDb();
  const organization = await createOrganization(db, { name });
  await enrollOrganization({ organizationId: organization.organizationId, email: "owner@example.com", name });
  const secret = await issueToken(db, { accountId: organization.liveAccountId, kind: "secret", name: "test secret" });
  const publishable = await issueToken(db, {
    accountId: organization.liveAccountId,
    kind: "publishable",
    name: "test publishable",
  });
  const sandboxSecret = await issueToken(db, {
    accountId: organization.sandboxAccountId,
    kind: "secret",
    name: "test sandbox secret",
  });
  return {
    ...organization,
    accountId: organization.liveAccountId,
    secret,
    publishable,
    sandboxSecret,
    /** A client with the live secret token. */
    client: api(secret.token),
  };
}

export type Merchant = Awaited<ReturnType<typeof newMerchant>>;

export async function revokeToken(tokenId: string): Promise<void> {
  const db = await getDb();
  await db.update(apiTokens).set({ revokedAt: new Date() }).where(eq(apiTokens.id, tokenId));
}

export async function setOrganizationStanding(
  organizationId: string,
  standing: Partial<typeof organizations.$inferInsert>,
): Promise<void> {
  const db = await getDb();
  await db.update(organizations).set(standing).where(eq(organizations.id, organizationId));
}

/**
 * A new merchant's sandbox account (a test clock moves a whole account, so each test has its own),
 * its API client, and `ok`: the answer's body once its status says it succeeded (200 or 201).
 */
export async function newSandbox() {
  const merchant = await newMerchant();
  const client = api(merchant.sandboxSecret.token);
  const account = merchant.sandboxAccountId;
  const ok = async (response: Promise<{ status: number; body: Json; text: string }>): Promise<Json> => {
    const settled = await response;
    expect([200, 201], settled.text).toContain(settled.status);
    return settled.body;
  };
  return { merchant, client, account, ok };
}
