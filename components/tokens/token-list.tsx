"use client";

import { Can } from "@/components/dashboard/role";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { useApiMutation } from "@/components/api-mutation";
import { Button, ErrorBox, Loading, StatusBadge, Table, Truncated, formatTime } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Pager } from "@/components/ui/pager";
import type { ApiToken, ApiTokenWithSecret } from "@/components/api-types";

const KIND_LABELS: Record<ApiToken["kind"], string> = { secret: "Secret", publishable: "Publishable", restricted: "Restricted" };

/** A restricted key's grants in one line: `invoices: write, customers: read`. */
function grantsText(token: ApiToken): string {
  const granted = Object.entries(token.permissions ?? {}).filter(([, level]) => level !== "none");
  return granted.length ? granted.map(([resource, level]) => `${resource}: ${level}`).join(", ") : "no permissions";
}

const LIMIT = 50;

export function TokenList({ accountId, onRolled }: { accountId: string; onRolled: (token: ApiTokenWithSecret) => void }) {
  const [offset, setOffset] = useState(0);
  const [confirming, setConfirming] = useState<ApiToken | null>(null);
  const [rolling, setRolling] = useState<ApiToken | null>(null);
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

  const roll = useApiMutation({
    // The previous secret keeps working for a day, so the servers using it can switch (docs/api.md).
    call: (token: ApiToken) =>
      dashboardCall("rollApiToken", { path: { account_id: accountId, token_id: token.id }, body: { overlap_seconds: 86_400 } }),
    refresh: [["api-tokens", accountId]],
    onAnswer: (token) => {
      setRolling(null);
      onRolled(token);
      // The full token lives only in the page's state.
      roll.reset();
    },
  });

  if (tokens.isPending) return <Loading what="Loading tokens" />;
  if (tokens.isError) return <ErrorBox error={tokens.error} />;
  const { items, total, has_more } = tokens.data;

  return (
    <>
      <Table
        label="API tokens"
        head={["Name", "Kind", "Token", "Created", "Last used", "Expires", "Status", "Actions"]}
      >
        {items.length === 0 ? (
          <tr>
            <td colSpan={8} className="px-2 py-4 text-slate-500">
              No tokens yet. Create one above to call the API from your servers.
            </td>
          </tr>
        ) : (
          items.map((token) => (
            <tr key={token.id}>
              <td className="px-2 py-2 font-medium">
                <Truncated text={token.name} />
              </td>
              <td className="px-2 py-2">
                {KIND_LABELS[token.kind]}
                {token.kind === "restricted" ? <div className="text-xs text-slate-500">{grantsText(token)}</div> : null}
              </td>
              <td className="whitespace-nowrap px-2 py-2 font-mono text-xs">{token.display}</td>
              <td className="whitespace-nowrap px-2 py-2">{formatTime(token.created)}</td>
              <td className="whitespace-nowrap px-2 py-2">
                {token.last_used_at ? formatTime(token.last_used_at) : "Never"}
                {token.last_used_ip ? <div className="font-mono text-xs text-slate-500">{token.last_used_ip}</div> : null}
              </td>
              <td className="whitespace-nowrap px-2 py-2">
                {token.expires_at ? formatTime(token.expires_at) : "Never"}
                {token.previous_secret_expires_at ? (
                  <div className="text-xs text-slate-500">previous secret until {formatTime(token.previous_secret_expires_at)}</div>
                ) : null}
              </td>
              <td className="px-2 py-2">
                <StatusBadge status={token.status} />
              </td>
              {/* Pinned to the right edge: however wide the row, Revoke stays in view. */}
              <td className="sticky right-0 bg-white px-2 py-2 text-right">
                {token.status !== "revoked" && (
                  <Can role="developer">
                    <div className="flex justify-end gap-2">
                      <Button variant="secondary" onClick={() => setRolling(token)}>
                        Roll
                      </Button>
                      <Button variant="secondary" onClick={() => setConfirming(token)}>
                        Revoke
                      </Button>
                    </div>
                  </Can>
                )}
              </td>
            </tr>
          ))
        )}
      </Table>
      <Pager label="API token pages" offset={offset} limit={LIMIT} total={total} hasMore={has_more} onChange={setOffset} />
      {rolling && (
        <ConfirmDialog
          title="Roll this token?"
          confirmLabel="Roll"
          busy={roll.isPending}
          error={roll.error}
          onConfirm={() => roll.mutate(rolling)}
          onCancel={() => {
            setRolling(null);
            roll.reset();
          }}
        >
          <p>
            <strong className="break-all">{rolling.name}</strong> gets a new secret, shown once. The current one (
            <code className="font-mono">{rolling.display}</code>) keeps working for 24 hours, then stops.
          </p>
        </ConfirmDialog>
      )}
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
