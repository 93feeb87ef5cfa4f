import { redirect } from "next/navigation";
import { organizationAccounts } from "@/lib/auth/users";
import { requireUser } from "./_lib/session";

/** Signed out: the sign-in page. Signed in: the live account's overview. */
export default async function Home() {
  const user = await requireUser();
  const [first] = await organizationAccounts(user.organizationId);
  redirect(first ? `/accounts/${first.id}` : "/signin");
}
