"use client";

import { useQuery } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { dashboardCall } from "@/components/api-client";
import type { Email } from "@/components/api-types";
import { Button, ErrorBox, formatTime, Loading, StatusBadge } from "@/components/ui";
import { StatusFilteredList } from "@/components/ui/status-list";

const EMAIL_STATUSES = ["queued", "sent", "failed", "rate_limited"] as const satisfies readonly Email["status"][];

export const emailQueryKeys = { emails: (accountId: string) => ["emails", accountId] as const };

/** The email as sent, rendered by the API, in a sandboxed frame (no script, no navigation of the dashboard). */
function EmailPreview({ accountId, id }: { accountId: string; id: string }) {
  const preview = useQuery({
    queryKey: [...emailQueryKeys.emails(accountId), "preview", id],
    queryFn: () => dashboardCall("previewEmail", { path: { account_id: accountId, email_id: id } }),
  });
  if (preview.isPending) return <Loading what="Rendering the email" />;
  if (preview.isError) return <ErrorBox error={preview.error} />;
  return <iframe title={`Preview of ${preview.data.subject}`} sandbox="" srcDoc={preview.data.html} className="h-[32rem] w-full rounded border border-slate-200 bg-white" />;
}

function EmailRow({ accountId, email }: { accountId: string; email: Email }) {
  const [open, setOpen] = useState(false);
  return (
    <Fragment>
      <tr className="align-top">
        <td className="px-2 py-2">
          <span className="block">{email.subject}</span>
          <span className="block font-mono text-xs text-slate-500">{email.id}</span>
        </td>
        <td className="px-2 py-2 text-xs">{email.type.replace("_", " ")}</td>
        <td className="break-all px-2 py-2 text-xs">{email.to.join(", ")}</td>
        <td className="px-2 py-2">
          <StatusBadge status={email.status} label={email.status.replace("_", " ")} />
        </td>
        <td className="px-2 py-2 tabular-nums">{email.attempts}</td>
        <td className="max-w-xs break-words px-2 py-2 font-mono text-xs">{email.smtp_response ?? "—"}</td>
        <td className="px-2 py-2 text-xs">{formatTime(email.sent_at ?? email.created)}</td>
        <td className="px-2 py-2">
          <Button variant="secondary" onClick={() => setOpen(!open)} aria-expanded={open}>
            {open ? "Hide" : "Preview"}
          </Button>
        </td>
      </tr>
      {open && (
        <tr>
          <td colSpan={8} className="px-2 py-2">
            <EmailPreview accountId={accountId} id={email.id} />
          </td>
        </tr>
      )}
    </Fragment>
  );
}

/** The email log: the account's emails (or one customer's or invoice's), with status, SMTP answer and a preview. */
export function EmailList({ accountId, customer, invoice }: { accountId: string; customer?: string; invoice?: string }) {
  const scope = customer ? { customer } : invoice ? { invoice } : undefined;
  const related = scope ? { scope, param: "email_", title: "Emails" } : {};
  return (
    <StatusFilteredList<Email, Email["status"]>
      list={(query) => dashboardCall("listEmails", { path: { account_id: accountId }, query })}
      noun={["email", "emails"]}
      statuses={EMAIL_STATUSES}
      queryKey={emailQueryKeys.emails(accountId)}
      head={["Subject", "Type", "To", "Status", "Attempts", "SMTP answer", "Sent / queued", ""]}
      {...related}
      emptyHint={scope ? "No emails sent for this yet." : "No emails yet: receipts, invoices, failed payments and credit notes are emailed to customers as they happen."}
      row={(email) => <EmailRow key={email.id} accountId={accountId} email={email} />}
    />
  );
}
