import type { Metadata } from "next";
import { TokensPage } from "@/components/tokens/tokens-page";

export const metadata: Metadata = { title: "API tokens · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function Page({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return <TokensPage accountId={account_id} />;
}
