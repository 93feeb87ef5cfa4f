import { eq } from "drizzle-orm";
import { z } from "zod";
import { getDb } from "@/db/client";
import { organizations, users } from "@/db/schema";
import { hashPassword } from "@/lib/auth/passwords";
import { enrollNewOrganization } from "@/lib/teams/users";
import { ServiceError, validationFailed } from "@/lib/errors";
import { isId, newId } from "@/lib/ids";
import { createOrganization } from "@/lib/organizations/service";
import { ROLES, type Role } from "@/lib/auth/roles";

export const CreateUserInput = z.strictObject({
  email: z.email("--email: enter a valid email address.").max(254).transform((email) => email.toLowerCase()),
  password: z.string().min(10, "--password: use at least 10 characters.").max(200),
  name: z.string().trim().min(1).max(120).optional(),
  /** An organization id (`org_…`) to join, or the name of a new organization. */
  organization: z.string().trim().min(1).max(120).optional(),
  role: z.enum(ROLES).default("owner"),
});

export type CreatedUser = {
  id: string;
  email: string;
  role: Role;
  organizationId: string;
  organizationName: string;
  newOrganization: boolean;
};

/**
 * `npm run user:create`: a password user, whatever SIGNUP says (the operator's way to make the first
 * user of a closed instance). With an existing organization's id it joins it with `role`; otherwise
 * it creates a new organization (live and sandbox accounts) whose owner it is.
 */
export async function createUser(input: {
  email: string;
  password: string;
  name?: string;
  organization?: string;
  role?: string;
}): Promise<CreatedUser> {
  const parsed = CreateUserInput.safeParse(input);
  if (!parsed.success) {
    throw validationFailed(parsed.error.issues.map((issue) => ({ field: issue.path.join("."), message: issue.message })));
  }
  const { email, password, name, organization, role } = parsed.data;
  const joining = organization !== undefined && isId("organization", organization);
  if (!joining && role !== "owner") {
    throw new ServiceError("validation", "A new organization's first user is its owner: pass --organization org_… to join one with another role.");
  }
  const passwordHash = await hashPassword(password);
  const db = await getDb();
  const created = await db.transaction(async (tx) => {
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(users.email, email));
    if (existing) throw new ServiceError("conflict", `A user with the email ${email} already exists; nothing was changed.`);
    let organizationId: string;
    let organizationName: string;
    if (joining) {
      const [row] = await tx.select({ id: organizations.id, name: organizations.name }).from(organizations).where(eq(organizations.id, organization));
      if (!row) throw new ServiceError("not_found", `No such organization: '${organization}'.`);
      organizationId = row.id;
      organizationName = row.name;
    } else {
      organizationName = organization ?? `${name ?? email}'s organization`;
      organizationId = (await createOrganization(tx, { name: organizationName })).organizationId;
    }
    const id = newId("user");
    await tx.insert(users).values({ id, organizationId, email, name: name ?? null, passwordHash, role });
    return { id, email, role, organizationId, organizationName, newOrganization: !joining };
  });
  if (created.newOrganization) {
    await enrollNewOrganization({ organizationId: created.organizationId, email, name: created.organizationName });
  }
  return created;
}
