"use client";

import Link from "next/link";
import { Suspense, type ReactNode } from "react";
import { DetailItem, Time } from "@/components/events/bits";
import { eventsHref } from "@/components/events/format";
import { Card, CopyButton, Loading, PageHeader, StatusBadge } from "@/components/ui";
import { RawJson } from "@/components/ui/raw-json";
import { BackLink, detailFallback, useApiObject } from "@/components/ui/detail";
import { objectKind } from "./kinds";
import { NamedLink } from "./names";
import { ObjectActions } from "./object-actions";
import { ObjectList } from "./object-list";

const TIME_KEYS = /(^created$|^updated$|_at$|^redeem_by$)/;

function FieldValue({ name, value, accountId }: { name: string; value: unknown; accountId: string }): ReactNode {
  if (value === null || value === undefined) return <span className="text-slate-500">—</span>;
  if (typeof value === "string" && TIME_KEYS.test(name)) return <Time iso={value} />;
  if (name === "status" && typeof value === "string") return <StatusBadge status={value} />;
  // The object's own id: there to copy, never a link to the page it is on (nor a label).
  if (name === "id" && typeof value === "string") {
    return (
      <span className="flex flex-wrap items-center gap-2">
        <code className="break-all font-mono text-xs">{value}</code>
        <CopyButton value={value} label="Copy id" />
      </span>
    );
  }
  if (typeof value === "string" && /^[a-z]+_[a-z]+_[0-9a-z]{20,}$/.test(value)) return <NamedLink accountId={accountId} id={value} />;
  if (typeof value === "object") return <code className="break-all font-mono text-xs">{JSON.stringify(value)}</code>;
  return <span className="break-all">{String(value)}</span>;
}

/** Any billing object of the generic kinds: its fields, its actions, its related lists, its raw JSON, its timeline. */
export function ObjectDetail({ accountId, slug, id }: { accountId: string; slug: string; id: string }) {
  const kind = objectKind(slug)!;
  const listHref = `/accounts/${accountId}/${kind.slug}`;
  const query = useApiObject([kind.slug, accountId, "one", id], () => kind.reads.get(accountId, id));
  const back = <BackLink href={listHref}>{kind.title}</BackLink>;
  const fallback = detailFallback(query, { noun: kind.noun, id, back, notFoundHint: `It may belong to another account, or it was deleted.` });
  if (fallback) return fallback;
  const object = query.data!;
  const fields = Object.entries(object).filter(([name]) => name !== "object" && name !== "metadata" && name !== "line_items");

  return (
    <>
      <div className="mb-2">{back}</div>
      <PageHeader title={kind.name(object)}>
        <Link href={eventsHref(accountId, { aggregate_id: object.id })} className="text-sm text-indigo-700 underline hover:text-indigo-900">
          Event timeline
        </Link>
      </PageHeader>
      <div className="space-y-4">
        <ObjectActions accountId={accountId} kind={kind} object={object} />
        <Card title="Details">
          <dl className="grid gap-3 text-sm sm:grid-cols-2 lg:grid-cols-3">
            {fields.map(([name, value]) => (
              <DetailItem key={name} label={name}>
                <FieldValue name={name} value={value} accountId={accountId} />
              </DetailItem>
            ))}
          </dl>
        </Card>
        {/* Related lists keep their page and filters in the URL (useSearchParams). */}
        <Suspense fallback={<Loading what="Loading related lists" />}>
          {kind.related?.map((related) => (
            <ObjectList key={related.slug} accountId={accountId} slug={related.slug} scope={{ [related.key]: object.id }} title={related.title} param={`${related.slug}_`} />
          ))}
        </Suspense>
        <RawJson value={object} />
      </div>
    </>
  );
}
