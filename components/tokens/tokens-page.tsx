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
              Secret tokens can call every operation on this account: keep them on your servers. Restricted keys call
              only what their permissions name (each operation of the{" "}
              <Link href="/reference" className="text-indigo-700 underline">
                API reference
              </Link>{" "}
              names the permission it needs). Publishable tokens may be embedded in a browser; they can call only the
              operations the reference marks as publishable.
            </p>
            <CreateTokenForm accountId={accountId} onCreated={setCreated} />
          </Card>
        </Can>
        {/* A new or rolled token's secret: shown once, outside the create card (a developer may roll). */}
        {created && (
          <div className="space-y-2">
            <ShownOnce
              label={`${{ secret: "Secret", publishable: "Publishable", restricted: "Restricted" }[created.kind]} token “${created.name}”`}
              value={created.token}
            />
            <Button variant="secondary" onClick={() => setCreated(null)}>
              Dismiss
            </Button>
          </div>
        )}
        <Card title="Tokens">
          <TokenList accountId={accountId} onRolled={setCreated} />
        </Card>
      </div>
    </>
  );
}
