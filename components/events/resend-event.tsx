"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { useApiMutation } from "@/components/api-mutation";
import { plainMessage } from "@/components/objects/form-values";
import { Button, Card, ErrorBox, Field, inputClass, Loading } from "@/components/ui";
import { ConfirmDialog } from "@/components/ui/confirm-dialog";
import { queryKeys } from "./format";

/**
 * Resend this event to one endpoint the merchant picks (POST /events/{id}/resend): a new
 * delivery, asked for with a confirmation that names the endpoint, shown at once in the event's
 * deliveries below (which poll while it is in flight).
 */
export function ResendEvent({ accountId, eventId }: { accountId: string; eventId: string }) {
  const endpoints = useQuery({
    queryKey: ["webhook-endpoints", accountId, "picker"],
    queryFn: () => dashboardCall("listWebhookEndpoints", { path: { account_id: accountId }, query: { limit: 100 } }),
  });
  const [chosen, setChosen] = useState("");
  const [confirming, setConfirming] = useState(false);
  const resend = useApiMutation({
    call: (endpointId: string) => dashboardCall("resendEvent", { path: { account_id: accountId, event_id: eventId }, body: { endpoint_id: endpointId } }),
    onAnswer: () => setConfirming(false),
    refresh: [queryKeys.eventFull(accountId, eventId)],
    fields: ["endpoint_id"],
  });

  if (endpoints.isPending) return <Card title="Resend"><Loading what="Loading endpoints" /></Card>;
  if (endpoints.isError) return <Card title="Resend"><ErrorBox error={endpoints.error} /></Card>;
  const enabled = endpoints.data.items.filter((endpoint) => endpoint.enabled);
  if (enabled.length === 0) {
    return (
      <Card title="Resend">
        <p className="text-sm text-slate-600">
          No enabled webhook endpoint to resend to.{" "}
          <Link href={`/accounts/${accountId}/webhooks`} className="text-indigo-700 underline hover:text-indigo-900">
            Manage webhooks
          </Link>
        </p>
      </Card>
    );
  }
  const endpointId = chosen || enabled[0]!.id;
  const endpoint = enabled.find((candidate) => candidate.id === endpointId);
  const fieldError = resend.fieldErrors.endpoint_id;

  return (
    <Card title="Resend">
      <form
        aria-label="Resend this event"
        className="flex flex-wrap items-end gap-3"
        onSubmit={(event) => {
          event.preventDefault();
          resend.reset();
          setConfirming(true);
        }}
      >
        <div className="min-w-0 max-w-xl flex-1">
          <Field label="Endpoint" error={fieldError ? plainMessage(fieldError) : undefined}>
            <select className={`${inputClass} truncate`} value={endpointId} onChange={(event) => setChosen(event.target.value)}>
              {enabled.map((candidate) => (
                <option key={candidate.id} value={candidate.id} title={candidate.url}>
                  {candidate.description ? `${candidate.description} — ${candidate.url}` : candidate.url}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <Button type="submit" variant="secondary" disabled={resend.isPending}>
          Resend event
        </Button>
        {resend.isSuccess && !confirming && (
          <span role="status" className="text-sm text-green-800">
            Resent: a new delivery is listed below.
          </span>
        )}
      </form>
      {confirming && (
        <ConfirmDialog
          title="Resend this event?"
          confirmLabel="Resend"
          busy={resend.isPending}
          error={resend.otherError ?? undefined}
          onCancel={() => setConfirming(false)}
          onConfirm={() => resend.mutate(endpointId)}
        >
          <span className="break-all">
            A new delivery of this event goes to {endpoint?.url ?? endpointId}, signed and retried like any other, with the same
            webhook-id so the receiver can skip it if already processed.
          </span>
        </ConfirmDialog>
      )}
    </Card>
  );
}
