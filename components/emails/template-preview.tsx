"use client";

import { useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { dashboardCall, type CallOutput } from "@/components/api-client";
import { Button, ErrorBox, Field, inputClass, Loading } from "@/components/ui";
import { LOCALES, type Locale } from "@/lib/account-settings/schema";
import type { EmailType } from "@/lib/email-outbox/types";

type TemplatePreview = CallOutput<"previewEmailTemplate">;

/** As Settings → Seller details names the invoice languages. */
const LOCALE_NAMES: Record<Locale, string> = { en: "English", fr: "Français", de: "Deutsch" };

export const emailTemplateQueryKeys = {
  templates: (accountId: string) => ["email-templates", accountId] as const,
};

/**
 * An email type rendered by the API with sample facts and the account's branding
 * (`GET /email-templates/{type}/preview`): the subject, the HTML in a sandboxed frame (no script,
 * no navigation of the dashboard, as the email log's preview), a language picker and the
 * plain-text part.
 */
export function EmailTemplatePreview({
  accountId,
  type,
  label,
  initialLocale,
  onClose,
}: {
  accountId: string;
  type: EmailType;
  label: string;
  initialLocale: Locale;
  onClose: () => void;
}) {
  const [locale, setLocale] = useState<Locale>(initialLocale);
  const headingId = useId();
  const preview = useQuery({
    queryKey: [...emailTemplateQueryKeys.templates(accountId), type, locale],
    queryFn: () => dashboardCall("previewEmailTemplate", { path: { account_id: accountId, type }, query: { locale } }),
  });
  return (
    <section aria-labelledby={headingId} className="mt-4 space-y-3 rounded border border-slate-200 bg-slate-50 p-3" data-testid="email-template-preview">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <h3 id={headingId} className="text-sm font-semibold">
          Preview: {label} <span className="font-normal text-slate-500">(sample data)</span>
        </h3>
        <div className="flex items-end gap-2">
          <div className="w-40">
            <Field label="Language">
              <select className={inputClass} value={locale} onChange={(event) => setLocale(event.target.value as Locale)}>
                {LOCALES.map((code) => (
                  <option key={code} value={code}>
                    {LOCALE_NAMES[code]}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <Button variant="secondary" onClick={onClose}>
            Close preview
          </Button>
        </div>
      </div>
      {preview.isPending ? (
        <Loading what="Rendering the email" />
      ) : preview.isError ? (
        <ErrorBox error={preview.error} />
      ) : (
        <RenderedTemplate preview={preview.data} />
      )}
    </section>
  );
}

function RenderedTemplate({ preview }: { preview: TemplatePreview }) {
  return (
    <div className="space-y-2">
      <p className="text-sm">
        <span className="text-slate-500">Subject: </span>
        <span data-testid="email-template-subject">{preview.subject}</span>
      </p>
      <iframe
        title={`Preview of ${preview.subject}`}
        sandbox=""
        srcDoc={preview.html}
        className="h-[32rem] w-full rounded border border-slate-200 bg-white"
      />
      <details>
        <summary className="cursor-pointer text-sm text-slate-700">Plain-text part</summary>
        <pre className="mt-2 whitespace-pre-wrap rounded border border-slate-200 bg-white p-3 text-xs" data-testid="email-template-text">
          {preview.text}
        </pre>
      </details>
    </div>
  );
}
