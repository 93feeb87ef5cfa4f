import type { Executor } from "@/db/client";
import { accounts, organizations } from "@/db/schema";
import { newId } from "@/lib/ids";

export type CreatedOrganization = { organizationId: string; liveAccountId: string; sandboxAccountId: string };

/**
 * An organization always has a live and a sandbox account (DESIGN.md decision 3). Its platform
 * billing (a trialing subscription) is enrolled after it commits: lib/platform enrollOrganization.
 */
export async function createOrganization(
  executor: Executor,
  input: { name: string },
): Promise<CreatedOrganization> {
  const organizationId = newId("organization");
  const liveAccountId = newId("account");
  const sandboxAccountId = newId("account");
  await executor.insert(organizations).values({
    id: organizationId,
    name: input.name,
  });
  await executor.insert(accounts).values([
    { id: liveAccountId, organizationId, name: input.name, livemode: true },
    { id: sandboxAccountId, organizationId, name: `${input.name} (sandbox)`, livemode: false },
  ]);
  return { organizationId, liveAccountId, sandboxAccountId };
}
