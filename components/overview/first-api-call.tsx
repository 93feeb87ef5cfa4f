"use client";

import Link from "next/link";
import { useSyncExternalStore } from "react";
import { Card, CopyButton } from "@/components/ui";
import { operationPath } from "@/lib/operation-paths";

const noSubscribe = () => () => undefined;

/**
 * The browser's own origin is the one the merchant reaches, whatever proxies sit in between; the
 * server's guess (from the request headers) only fills the first render.
 */
function useOrigin(serverOrigin: string): string {
  return useSyncExternalStore(noSubscribe, () => window.location.origin, () => serverOrigin);
}

/** Two copy-pasteable calls that get a merchant from a token to seeing their first event. */
export function FirstApiCall({ accountId, serverOrigin }: { accountId: string; serverOrigin: string }) {
  const origin = useOrigin(serverOrigin);
  const create = [
    `curl -X POST ${origin}${operationPath("createCustomerForTokenAccount")} \\`,
    `  -H "Authorization: Bearer <your secret token>" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '{"email": "jenny@example.com", "name": "Jenny Rosen"}'`,
  ].join("\n");
  const list = [`curl ${origin}${operationPath("listEvents", { account_id: accountId })} \\`, `  -H "Authorization: Bearer <your secret token>"`].join("\n");

  return (
    <Card title="Your first API call">
      <div className="space-y-4 text-sm">
        <div className="flex flex-wrap items-center gap-2">
          <span className="text-slate-600">Account id</span>
          <code data-testid="account-id" className="break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs">
            {accountId}
          </code>
          <CopyButton value={accountId} label="Copy account id" />
        </div>
        <ol className="list-decimal space-y-4 pl-5">
          <li>
            <Link href={`/accounts/${accountId}/tokens`} className="text-indigo-700 underline hover:text-indigo-900">
              Create a secret token
            </Link>{" "}
            and keep it on your server; it is shown only once.
          </li>
          <li>
            <Command label="Create a customer" command={create} />
          </li>
          <li>
            <Command label="List this account's events: the customer.created event is there" command={list} />
          </li>
        </ol>
        <p>
          Every operation, with request and response schemas:{" "}
          <Link href="/reference" className="text-indigo-700 underline hover:text-indigo-900">
            API reference
          </Link>
          .
        </p>
      </div>
    </Card>
  );
}

function Command({ label, command }: { label: string; command: string }) {
  return (
    <figure className="space-y-1">
      <figcaption className="flex flex-wrap items-center justify-between gap-2">
        <span>{label}</span>
        <CopyButton value={command} label="Copy command" />
      </figcaption>
      {/* Focusable so the long lines can be scrolled with the keyboard at phone width. */}
      <pre tabIndex={0} className="overflow-x-auto rounded bg-slate-900 p-3 font-mono text-xs text-slate-100">
        <code>{command}</code>
      </pre>
    </figure>
  );
}
