"use client";

import { useId, useState } from "react";
import { splitFormError } from "@/components/ui/form-errors";
import { Button, ErrorBox, Field, inputClass } from "@/components/ui";
import { EventTypePicker } from "./event-type-picker";
import { isEndpointEvent, type EndpointFormValues } from "./types";

/**
 * URL, description and event types of an endpoint, for creating and editing. Validation is the
 * server's (HTTPS, known types): its messages are shown under the fields they concern.
 */
export function EndpointForm({
  label,
  initial,
  submitLabel,
  pending,
  error,
  onSubmit,
  onCancel,
}: {
  label: string;
  initial?: EndpointFormValues;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (values: EndpointFormValues) => void;
  onCancel?: () => void;
}) {
  const [url, setUrl] = useState(initial?.url ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [events, setEvents] = useState<string[]>(initial?.events ?? []);
  const urlHintId = useId();
  const descriptionHintId = useId();
  const errors = splitFormError(error, ["url", "description", "events"] as const);

  return (
    <form
      noValidate
      aria-label={label}
      className="space-y-4"
      onSubmit={(event) => {
        event.preventDefault();
        // The picker offers the catalogue's types and "*" only, so the guard keeps every one.
        onSubmit({ url: url.trim(), description: description.trim() === "" ? null : description.trim(), events: events.filter(isEndpointEvent) });
      }}
    >
      <div className="grid gap-3 md:grid-cols-2">
        {/* Hints sit outside the <label> so they describe the field instead of lengthening its name. */}
        <div>
          <Field label="Endpoint URL" error={errors.fields.url}>
            <input
              aria-describedby={urlHintId}
              type="url"
              inputMode="url"
              className={inputClass}
              value={url}
              onChange={(event) => setUrl(event.target.value)}
              placeholder="https://"
              autoComplete="off"
              spellCheck={false}
              aria-invalid={errors.fields.url ? true : undefined}
            />
          </Field>
          <p id={urlHintId} className="mt-1 text-xs text-slate-500">
            HTTPS only, e.g. https://example.com/webhooks/billing
          </p>
        </div>
        <div>
          <Field label="Description" error={errors.fields.description}>
            <input
              aria-describedby={descriptionHintId}
              className={inputClass}
              value={description}
              onChange={(event) => setDescription(event.target.value)}
              maxLength={500}
              aria-invalid={errors.fields.description ? true : undefined}
            />
          </Field>
          <p id={descriptionHintId} className="mt-1 text-xs text-slate-500">
            Optional, for your team.
          </p>
        </div>
      </div>
      <EventTypePicker value={events} onChange={setEvents} error={errors.fields.events} />
      {errors.other ? <ErrorBox error={errors.other} /> : null}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={pending}>
          {submitLabel}
        </Button>
        {onCancel && (
          <Button variant="secondary" onClick={onCancel} disabled={pending}>
            Cancel
          </Button>
        )}
      </div>
    </form>
  );
}
