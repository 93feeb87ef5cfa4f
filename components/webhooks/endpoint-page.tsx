"use client";

import { Can } from "@/components/dashboard/role";
import { useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { MutationError, useApiMutation } from "@/components/api-mutation";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { Button, Card, ErrorBox, Loading, PageHeader, ShownOnce, StatusBadge, formatTime } from "@/components/ui";
import { AutoDisabledNotice } from "./auto-disabled-notice";
import { EndpointDeliveries, deliveriesKey } from "./endpoint-deliveries";
import { EndpointForm } from "./endpoint-form";
import { EndpointHealth, healthKey } from "./endpoint-health";
import { EndpointLag } from "./endpoint-lag";
import { ALL_EVENTS } from "./format";
import { ReplayWindow } from "./replay-window";
import { RotateSecretDialog } from "./rotate-secret-dialog";
import { SendTestEvent } from "./send-test-event";
import { isEndpointEvent, type EndpointFormValues } from "./types";
import type { WebhookEndpoint } from "@/components/api-types";

function endpointKeyOf(accountId: string, endpointId: string) {
  return ["webhook-endpoint", accountId, endpointId] as const;
}

const linkClass = "text-indigo-700 underline-offset-2 hover:underline";

export function EndpointPage({ accountId, endpointId }: { accountId: string; endpointId: string }) {
  const queryClient = useQueryClient();
  const router = useRouter();
  const path = { account_id: accountId, endpoint_id: endpointId };
  const endpointKey = endpointKeyOf(accountId, endpointId);
  const listKey = ["webhook-endpoints", accountId] as const;

  const [editing, setEditing] = useState(false);
  const [confirmingDelete, setConfirmingDelete] = useState(false);
  const [confirmingRotate, setConfirmingRotate] = useState(false);
  // Component state only (never the query cache): leaving the page forgets the secret for good.
  const [secret, setSecret] = useState<string | null>(null);
  const [deleted, setDeleted] = useState(false);
  const deletedRef = useRef(false);

  const endpoint = useQuery({
    queryKey: endpointKey,
    queryFn: () => dashboardCall("getWebhookEndpoint", { path }),
    enabled: !deleted,
  });

  const saved = (updated: WebhookEndpoint) => {
    queryClient.setQueryData(endpointKey, updated);
    void queryClient.invalidateQueries({ queryKey: listKey });
  };

  const update = useApiMutation({
    call: (changes: Partial<EndpointFormValues> & { enabled?: boolean }) => dashboardCall("updateWebhookEndpoint", { path, body: changes }),
    onAnswer: (updated) => {
      saved(updated);
      setEditing(false);
    },
  });
  // A separate mutation, so a failed toggle is not shown as an error of the edit form.
  const toggle = useApiMutation({
    call: (enabled: boolean) => dashboardCall("updateWebhookEndpoint", { path, body: { enabled } }),
    onAnswer: saved,
  });
  const remove = useApiMutation({
    call: () => dashboardCall("deleteWebhookEndpoint", { path }),
    // Stop every query of the endpoint first: a refetch now would only show a 404.
    onAnswer: () => {
      setDeleted(true);
      deletedRef.current = true;
      setConfirmingDelete(false);
    },
    refresh: [listKey],
    onSuccess: () => router.push(`/accounts/${accountId}/webhooks`),
  });
  // Forgets the deleted endpoint's cached queries once the page is left.
  useEffect(
    () => () => {
      if (!deletedRef.current) return;
      for (const key of [endpointKeyOf(accountId, endpointId), deliveriesKey(accountId, endpointId), healthKey(accountId, endpointId)]) {
        queryClient.removeQueries({ queryKey: key });
      }
    },
    [accountId, endpointId, queryClient],
  );

  return (
    <>
      <nav aria-label="Back" className="mb-2 flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <Link href={`/accounts/${accountId}/webhooks`} className={linkClass}>
          ← All webhooks
        </Link>
        <Link href={`/accounts/${accountId}/events`} className={linkClass}>
          Back to events
        </Link>
      </nav>
      <PageHeader title="Webhook endpoint" />
      {deleted ? (
        <p role="status" className="text-sm text-slate-600">
          Endpoint deleted. Returning to the webhooks list…
        </p>
      ) : endpoint.isPending ? (
        <Loading what="Loading endpoint" />
      ) : endpoint.isError ? (
        <ErrorBox error={endpoint.error} />
      ) : (
        <div className="space-y-4">
          <AutoDisabledNotice accountId={accountId} endpoint={endpoint.data} onChanged={saved} />
          <Card
            title="Settings"
            actions={
              !editing && (
                <Can role="developer">
                  <div className="flex flex-wrap gap-2">
                    <Button
                      variant="secondary"
                      disabled={toggle.isPending}
                      onClick={() => toggle.mutate(!endpoint.data.enabled)}
                    >
                      {endpoint.data.enabled ? "Disable" : "Enable"}
                    </Button>
                    <Button variant="secondary" onClick={() => setEditing(true)}>
                      Edit
                    </Button>
                    <Button variant="secondary" onClick={() => setConfirmingRotate(true)}>
                      Rotate secret
                    </Button>
                    <Button variant="danger" onClick={() => setConfirmingDelete(true)}>
                      Delete
                    </Button>
                  </div>
                </Can>
              )
            }
          >
            {editing ? (
              <EndpointForm
                label="Edit webhook endpoint"
                initial={{
                  url: endpoint.data.url,
                  description: endpoint.data.description,
                  events: endpoint.data.events.filter(isEndpointEvent),
                }}
                submitLabel={update.isPending ? "Saving…" : "Save changes"}
                pending={update.isPending}
                error={update.error}
                onSubmit={(values) => update.mutate(values)}
                onCancel={() => {
                  setEditing(false);
                  update.reset();
                }}
              />
            ) : (
              <EndpointSettings endpoint={endpoint.data} />
            )}
            <div className="mt-4 space-y-3" aria-live="polite">
              <MutationError mutation={toggle} />
              {secret && (
                <div className="space-y-2">
                  <ShownOnce label="New signing secret" value={secret} />
                  <p className="text-sm text-slate-600">
                    {endpoint.data.previous_secret_expires_at
                      ? `The previous secret also signs deliveries until ${formatTime(endpoint.data.previous_secret_expires_at)}.`
                      : "The previous secret no longer signs requests."}
                  </p>
                  <Button variant="secondary" onClick={() => setSecret(null)}>
                    Dismiss
                  </Button>
                </div>
              )}
            </div>
          </Card>

          <Card title="Delivery health">
            <EndpointHealth accountId={accountId} endpointId={endpointId} />
          </Card>

          <Card title="Delivery lag and throughput"><EndpointLag accountId={accountId} endpointId={endpointId} /></Card>

          <Card title="Recent deliveries">
            <EndpointDeliveries accountId={accountId} endpointId={endpointId} />
          </Card>

          <Can role="developer">
            <Card title="Send a test event">
              <SendTestEvent accountId={accountId} endpointId={endpointId} />
            </Card>

            <Card title="Replay events">
              <ReplayWindow accountId={accountId} endpointId={endpointId} />
            </Card>
          </Can>
        </div>
      )}
      {confirmingRotate && (
        <RotateSecretDialog
          path={path}
          onCancel={() => setConfirmingRotate(false)}
          onRotated={({ secret: newSecret, ...updated }) => {
            setSecret(newSecret);
            saved(updated);
            setConfirmingRotate(false);
          }}
        />
      )}
      {confirmingDelete && endpoint.data && (
        <ConfirmDialog
          title="Delete this endpoint?"
          confirmLabel="Delete"
          busy={remove.isPending}
          error={remove.error}
          onConfirm={() => remove.mutate()}
          onCancel={() => {
            setConfirmingDelete(false);
            remove.reset();
          }}
        >
          <p>
            <span className="break-all font-medium">{endpoint.data.url}</span> stops receiving events at once, and
            pending deliveries to it are not made. This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}

function EndpointSettings({ endpoint }: { endpoint: WebhookEndpoint }) {
  const all = endpoint.events.includes(ALL_EVENTS);
  return (
    <dl className="grid gap-x-6 gap-y-3 text-sm sm:grid-cols-[10rem_1fr]">
      <dt className="font-medium text-slate-500">URL</dt>
      <dd className="break-all font-mono">{endpoint.url}</dd>
      <dt className="font-medium text-slate-500">Description</dt>
      <dd>{endpoint.description ?? "—"}</dd>
      <dt className="font-medium text-slate-500">Status</dt>
      <dd>
        <StatusBadge status={endpoint.enabled ? "enabled" : "disabled"} label={endpoint.enabled ? "Enabled" : "Disabled"} />
        {!endpoint.enabled && <span className="ml-2 text-slate-500">Receives no events while disabled.</span>}
      </dd>
      <dt className="font-medium text-slate-500">Events</dt>
      <dd>
        {all ? (
          "All events"
        ) : (
          <ul className="flex flex-wrap gap-1">
            {endpoint.events.map((type) => (
              <li key={type} className="rounded bg-slate-100 px-1.5 py-0.5 font-mono text-xs">
                {type}
              </li>
            ))}
          </ul>
        )}
      </dd>
      {endpoint.previous_secret_expires_at && (
        <>
          <dt className="font-medium text-slate-500">Previous secret</dt>
          <dd>Still signs deliveries until {formatTime(endpoint.previous_secret_expires_at)}</dd>
        </>
      )}
      <dt className="font-medium text-slate-500">ID</dt>
      <dd className="break-all font-mono text-xs">{endpoint.id}</dd>
      <dt className="font-medium text-slate-500">Created</dt>
      <dd>{formatTime(endpoint.created)}</dd>
      <dt className="font-medium text-slate-500">Updated</dt>
      <dd>{formatTime(endpoint.updated)}</dd>
    </dl>
  );
}
