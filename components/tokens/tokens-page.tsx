"use client";

import Link from "next/link";
import { useState } from "react";
import { Can } from "@/components/dashboard/role";
import { Button, Card, PageHeader, ShownOnce } from "@/components/ui";
import { CreateTokenForm } from "./create-token-form";
import { TokenList } from "./token-list";
import type { ApiTokenWithSecret } from "@/components/api-types";

export function TokensPage({ accountId }: { accountId: string }) {
  // Component state only (never the query cache): leaving the page forgets the full token for good.
  const [created, setCreated] = useState<ApiTokenWithSecret | null>(null);
  return (
    <>
      <PageHeader title="API tokens" />
      <div className="space-y-4">
        {/* A token can do no more than its maker: both kinds can make billing changes, so minting needs an admin (lib/server/token-minting.ts). */}
        <Can role="admin">
          <Card title="Create a token">
            <p className="mb-3 text-sm text-slate-600">
              Secret tokens can call every operation on this account: keep them on your servers. Publishable tokens may
              be embedded in a browser; they can call only the operations the{" "}
              <Link href="/reference" className="text-indigo-700 underline">
                API reference
              </Link>{" "}
              marks as publishable.
            </p>
            <CreateTokenForm accountId={accountId} onCreated={setCreated} />
            {created && (
              <div className="mt-4 space-y-2">
                <ShownOnce
                  label={`${created.kind === "secret" ? "Secret" : "Publishable"} token “${created.name}”`}
                  value={created.token}
                />
                <Button variant="secondary" onClick={() => setCreated(null)}>
                  Dismiss
                </Button>
              </div>
            )}
          </Card>
        </Can>
        <Card title="Tokens">
          <TokenList accountId={accountId} />
        </Card>
      </div>
    </>
  );
}
