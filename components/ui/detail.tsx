"use client";

import { useQuery, type UseQueryResult } from "@tanstack/react-query";
import Link from "next/link";
import type { ReactNode } from "react";
import { ApiError } from "@/components/api-client";
import { ErrorBox, Loading, PageHeader } from "@/components/ui";

const linkClass = "text-sm text-indigo-700 underline hover:text-indigo-900";

/** One object from the API (`read`: a dashboardCall); a 404 stays a 404, so it is shown at once instead of retried. */
export function useApiObject<T>(queryKey: readonly unknown[], read: () => Promise<T>): UseQueryResult<T> {
  return useQuery({
    queryKey,
    queryFn: read,
    retry: (failures, error) => !(error instanceof ApiError && error.status === 404) && failures < 1,
  });
}

export function BackLink({ href, children }: { href: string; children: ReactNode }) {
  return (
    <Link href={href} className={linkClass}>
      <span aria-hidden="true">← </span>
      {children}
    </Link>
  );
}

/**
 * What a detail page shows before it has its object: loading, "No such …" for a 404, or the error.
 * Null once the data is there.
 */
export function detailFallback<T>(
  query: UseQueryResult<T>,
  options: { noun: string; id: string; back: ReactNode; notFoundHint: string },
): ReactNode | null {
  const { noun, id, back, notFoundHint } = options;
  if (query.isPending) {
    return (
      <>
        <div className="mb-2">{back}</div>
        <Loading what={`Loading ${noun}`} />
      </>
    );
  }
  if (!query.isError) return null;
  const notFound = query.error instanceof ApiError && query.error.status === 404;
  return (
    <>
      <div className="mb-2">{back}</div>
      {notFound ? (
        <>
          <PageHeader title={`No such ${noun}`} />
          <p role="alert" className="rounded border border-slate-200 bg-white p-3 text-sm text-slate-700">
            No such {noun} in this account: <code className="break-all font-mono text-xs">{id}</code>. {notFoundHint}
          </p>
        </>
      ) : (
        <>
          <PageHeader title={noun.charAt(0).toUpperCase() + noun.slice(1)} />
          <ErrorBox error={query.error} />
        </>
      )}
    </>
  );
}
