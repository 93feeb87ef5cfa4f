"use client";

import Link from "next/link";
import { useState } from "react";
import { dashboardCall } from "@/components/api-client";
import { useApiMutation } from "@/components/api-mutation";
import { Can } from "@/components/dashboard/role";
import { Button, Card, PageHeader, ShownOnce } from "@/components/ui";
import { EndpointForm } from "./endpoint-form";
import { EndpointList } from "./endpoint-list";
import type { EndpointFormValues } from "./types";
import type { WebhookEndpointWithSecret } from "@/components/api-types";

export function WebhooksPage({ accountId }: { accountId: string }) {
  // Component state only (never the query cache): leaving the page forgets the secret for good.
  const [created, setCreated] = useState<WebhookEndpointWithSecret | null>(null);
  // A new key empties the form after a successful creation.
  const [formKey, setFormKey] = useState(0);
  const create = useApiMutation({
    call: (values: EndpointFormValues) => dashboardCall("createWebhookEndpoint", { path: { account_id: accountId }, body: values }),
    onAnswer: (endpoint) => {
      setCreated(endpoint);
      setFormKey((key) => key + 1);
      create.reset();
    },
    refresh: [["webhook-endpoints", accountId]],
    refreshInBackground: true,
  });

  return (
    <>
      <PageHeader title="Webhooks" />
      <div className="space-y-4">
        <Can role="developer">
          <Card title="Add an endpoint">
            <EndpointForm
              key={formKey}
              label="New webhook endpoint"
              submitLabel={create.isPending ? "Adding…" : "Add endpoint"}
              pending={create.isPending}
              error={create.error}
              onSubmit={(values) => create.mutate(values)}
            />
            {created && (
              <div className="mt-4 space-y-2">
                <ShownOnce label="Signing secret" value={created.secret} />
                <p className="text-sm text-slate-600">
                  Verify each request&apos;s signature with it. Endpoint added:{" "}
                  <Link
                    href={`/accounts/${accountId}/webhooks/${created.id}`}
                    className="break-all text-indigo-700 underline"
                  >
                    open the new endpoint
                  </Link>
                </p>
                <Button variant="secondary" onClick={() => setCreated(null)}>
                  Dismiss
                </Button>
              </div>
            )}
          </Card>
        </Can>
        <Card title="Endpoints">
          <EndpointList accountId={accountId} />
        </Card>
      </div>
    </>
  );
}
