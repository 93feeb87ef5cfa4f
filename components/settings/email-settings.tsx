"use client";

import { useState } from "react";
import { ApiForm } from "@/components/objects/api-form";
import { dashboardCall } from "@/components/api-client";
import { EmailTemplatePreview } from "@/components/emails/template-preview";
import { useCan } from "@/components/dashboard/role";
import { Button, Card, ErrorBox, Loading } from "@/components/ui";
import { useApiObject } from "@/components/ui/detail";
import { SWITCHABLE_EMAIL_TYPES, type EmailType } from "@/lib/email-outbox/types";

const settingsKey = (accountId: string) => ["account-settings", accountId] as const;

const TYPE_LABELS: Record<string, string> = {
  invoice: "Invoice (send_invoice invoices at finalization, the invoice page, POST /invoices/{id}/send)",
  receipt: "Payment receipt",
  payment_failed: "Payment failed",
  payment_action_required: "Payment action required (3-D Secure)",
  final_notice: "Final dunning notice (the last payment retry failed)",
  credit_note: "Credit note issued",
  trial_ending: "Trial ending (3 days before)",
  upcoming_renewal: "Upcoming renewal",
  subscription_cancelled: "Subscription cancelled",
  portal_link: "Portal sign-in link",
  test: "Test email",
};

const PREVIEW_PANEL_ID = "email-template-preview";

/**
 * Settings → Emails (docs/emails.md): a switch per email type, each with a preview of its
 * template (sample data), the sender name, reply-to and the hourly limit, through
 * `POST /api/account-settings`; and "send a test email".
 */
export function EmailSettings({ accountId }: { accountId: string }) {
  const [saved, setSaved] = useState(false);
  const [tested, setTested] = useState(false);
  const [previewing, setPreviewing] = useState<EmailType | null>(null);
  // The switches are an admin's (ApiForm shows them to admins only); every role may preview, as every role reads the email log.
  const canSwitch = useCan("admin");
  const query = useApiObject(settingsKey(accountId), () => dashboardCall("getAccountSettings", { path: { account_id: accountId } }));
  if (query.isPending) return <Loading what="Loading the email settings" />;
  if (query.error || !query.data) return <ErrorBox error={query.error} />;
  const settings = query.data;
  const orNull = (value: string | undefined) => (value?.trim() ? value.trim() : null);
  // The type's name is in the button's (visually hidden) text, not an aria-label: the type's label
  // names its switch alone, and an aria-label holding it would make the button a second control of that name.
  const previewButton = (type: EmailType) => (
    <Button
      variant="secondary"
      aria-expanded={previewing === type}
      aria-controls={previewing === type ? PREVIEW_PANEL_ID : undefined}
      onClick={() => setPreviewing(previewing === type ? null : type)}
    >
      {previewing === type ? "Hide preview" : "Preview"}
      <span className="sr-only"> {TYPE_LABELS[type] ?? type}</span>
    </Button>
  );
  const preview = previewing && (
    <div id={PREVIEW_PANEL_ID}>
      <EmailTemplatePreview
        key={previewing}
        accountId={accountId}
        type={previewing}
        label={TYPE_LABELS[previewing] ?? previewing}
        initialLocale={settings.default_locale}
        onClose={() => setPreviewing(null)}
      />
    </div>
  );
  return (
    <Card title="Emails">
      {saved && (
        <p role="status" className="mb-3 text-sm text-green-800">
          Saved.
        </p>
      )}
      <ApiForm
        key={JSON.stringify(settings)}
        label="Email settings"
        submitLabel="Save email settings"
        operation="updateAccountSettings"
        params={{ path: { account_id: accountId } }}
        invalidate={[settingsKey(accountId)]}
        onDone={() => setSaved(true)}
        extra={() => previewing !== "test" && preview}
        fields={[
          { name: "email_sender_name", label: "Sender name", initial: settings.email_sender_name ?? "", hint: "Empty: the business name" },
          { name: "email_reply_to", label: "Reply-to", kind: "email", initial: settings.email_reply_to ?? "", hint: "Empty: the support email" },
          { name: "email_hourly_limit", label: "Emails per hour", kind: "number", initial: String(settings.email_hourly_limit) },
          ...SWITCHABLE_EMAIL_TYPES.map((type) => ({
            name: `type_${type}`,
            label: TYPE_LABELS[type] ?? type,
            kind: "select" as const,
            options: [
              { value: "on", label: "On" },
              { value: "off", label: "Off" },
            ],
            initial: settings.email_types_disabled.includes(type) ? "off" : "on",
            aside: previewButton(type),
          })),
        ]}
        toBody={(values) => ({
          email_sender_name: orNull(values.email_sender_name),
          email_reply_to: orNull(values.email_reply_to),
          email_hourly_limit: Number(values.email_hourly_limit),
          email_types_disabled: SWITCHABLE_EMAIL_TYPES.filter((type) => values[`type_${type}`] === "off"),
        })}
      />
      {!canSwitch && (
        <ul className="space-y-2" aria-label="Email templates">
          {SWITCHABLE_EMAIL_TYPES.map((type) => (
            <li key={type} className="flex items-center justify-between gap-2 text-sm">
              <span>
                {TYPE_LABELS[type] ?? type}
                <span className="ml-2 text-slate-500">{settings.email_types_disabled.includes(type) ? "off" : "on"}</span>
              </span>
              {previewButton(type)}
            </li>
          ))}
        </ul>
      )}
      {!canSwitch && previewing !== "test" && preview}
      <div className="mt-6 border-t border-slate-200 pt-4">
        {tested && (
          <p role="status" className="mb-3 text-sm text-green-800">
            Queued: see it in Emails.
          </p>
        )}
        <ApiForm
          label="Send a test email"
          submitLabel="Send a test email"
          operation="sendTestEmail"
          params={{ path: { account_id: accountId } }}
          invalidate={[["emails", accountId]]}
          onDone={() => setTested(true)}
          fields={[{ name: "to", label: "To", kind: "email", initial: settings.support_email ?? "" }]}
          toBody={(values) => ({ to: values.to ?? "" })}
        />
        <div className="mt-3">{previewButton("test")}</div>
        {previewing === "test" && preview}
      </div>
    </Card>
  );
}
