"use client";

import { Can } from "@/components/dashboard/role";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { useApiMutation } from "@/components/api-mutation";
import { Button, ErrorBox, Loading, StatusBadge, Table, Truncated, formatTime } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Pager } from "@/components/ui/pager";
import type { ApiToken } from "@/components/api-types";

const LIMIT = 50;

export function TokenList({ accountId }: { accountId: string }) {
  const [offset, setOffset] = useState(0);
  const [confirming, setConfirming] = useState<ApiToken | null>(null);
  const tokens = useQuery({
    queryKey: ["api-tokens", accountId, { offset }],
    queryFn: () => dashboardCall("listApiTokens", { path: { account_id: accountId }, query: { limit: LIMIT, offset } }),
    placeholderData: keepPreviousData,
  });
  const revoke = useApiMutation({
    call: (token: ApiToken) => dashboardCall("revokeApiToken", { path: { account_id: accountId, token_id: token.id } }),
    refresh: [["api-tokens", accountId]],
    onSuccess: () => {
      setConfirming(null);
      revoke.reset();
    },
  });

  if (tokens.isPending) return <Loading what="Loading tokens" />;
  if (tokens.isError) return <ErrorBox error={tokens.error} />;
  const { items, total, has_more } = tokens.data;

  return (
    <>
      <Table
        label="API tokens"
        head={["Name", "Kind", "Token", "Created", "Last used", "Status", "Actions"]}
      >
        {items.length === 0 ? (
          <tr>
            <td colSpan={7} className="px-2 py-4 text-slate-500">
              No tokens yet. Create one above to call the API from your servers.
            </td>
          </tr>
        ) : (
          items.map((token) => (
            <tr key={token.id}>
              <td className="px-2 py-2 font-medium">
                <Truncated text={token.name} />
              </td>
              <td className="px-2 py-2">{token.kind === "secret" ? "Secret" : "Publishable"}</td>
              <td className="whitespace-nowrap px-2 py-2 font-mono text-xs">{token.display}</td>
              <td className="whitespace-nowrap px-2 py-2">{formatTime(token.created)}</td>
              <td className="whitespace-nowrap px-2 py-2">{token.last_used_at ? formatTime(token.last_used_at) : "Never"}</td>
              <td className="px-2 py-2">
                <StatusBadge status={token.status} />
              </td>
              {/* Pinned to the right edge: however wide the row, Revoke stays in view. */}
              <td className="sticky right-0 bg-white px-2 py-2 text-right">
                {token.status === "active" && (
                  <Can role="developer">
                    <Button variant="secondary" onClick={() => setConfirming(token)}>
                      Revoke
                    </Button>
                  </Can>
                )}
              </td>
            </tr>
          ))
        )}
      </Table>
      <Pager label="API token pages" offset={offset} limit={LIMIT} total={total} hasMore={has_more} onChange={setOffset} />
      {confirming && (
        <ConfirmDialog
          title="Revoke this token?"
          confirmLabel="Revoke"
          busy={revoke.isPending}
          error={revoke.error}
          onConfirm={() => revoke.mutate(confirming)}
          onCancel={() => {
            setConfirming(null);
            revoke.reset();
          }}
        >
          <p>
            <strong className="break-all">{confirming.name}</strong> (<code className="font-mono">{confirming.display}</code>) stops working at
            once: every request made with it is rejected. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
