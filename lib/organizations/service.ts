import type { Executor } from "@/db/client";
import { accounts, organizations } from "@/db/schema";
import { newId } from "@/lib/ids";

/** New organizations start trialing the platform (issue 6 moves this onto a platform subscription). */
export const TRIAL_DAYS = 14;

export type CreatedOrganization = { organizationId: string; liveAccountId: string; sandboxAccountId: string };

/** An organization always has a live and a sandbox account (DESIGN.md decision 3). */
export async function createOrganization(
  executor: Executor,
  input: { name: string; now?: Date },
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
