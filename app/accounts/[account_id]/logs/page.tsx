import type { Metadata } from "next";
import { Suspense } from "react";
import { LogsPage } from "@/components/logs/logs-page";
import { Loading } from "@/components/ui";

export const metadata: Metadata = { title: "Logs · Billing Service" };

/** The layout has already checked the session and that the account is the user's. */
export default async function Page({ params }: { params: Promise<{ account_id: string }> }) {
  const { account_id } = await params;
  return (
    // The list reads its filters from the URL (useSearchParams), which needs a Suspense boundary.
    <Suspense fallback={<Loading what="Loading logs" />}>
      <LogsPage accountId={account_id} />
    </Suspense>
  );
}
