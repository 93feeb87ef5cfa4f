"use client";

/** A problem body from the API (RFC 9457), thrown by apiFetch for any non-2xx answer. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: { title?: string; detail?: string; errors?: { field: string; message: string }[]; request_id?: string },
  ) {
    super(problem.detail ?? problem.title ?? `Request failed with ${status}`);
    this.name = "ApiError";
  }

  /** The message for one field, for inline form errors. */
  fieldError(field: string): string | undefined {
    return this.problem.errors?.find((error) => error.field === field)?.message;
  }
}

/**
 * The dashboard calls the same REST API as merchants' servers, authenticated by the session
 * cookie (same origin only). `path` is relative to /api, e.g. `/${accountId}/events`.
 */
export async function apiFetch<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await fetch(`/api${path}`, {
    method: init.method ?? "GET",
    credentials: "same-origin",
    headers: init.body !== undefined ? { "Content-Type": "application/json" } : {},
    body: init.body !== undefined ? JSON.stringify(init.body) : undefined,
  });
  const text = await response.text();
  const json = text ? JSON.parse(text) : undefined;
  if (!response.ok) throw new ApiError(response.status, json ?? {});
  return json as T;
}

export type ListEnvelope<T> = { items: T[]; total: number; has_more: boolean };
