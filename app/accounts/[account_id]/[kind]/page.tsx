import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { Suspense } from "react";
import Link from "next/link";
import { OBJECT_KIND_GROUPS, OBJECT_KIND_TITLES } from "@/components/objects/titles";
import { ObjectList } from "@/components/objects/object-list";
import { ObjectCreate } from "@/components/objects/object-create";
import { Loading, PageHeader } from "@/components/ui";

type Params = { params: Promise<{ account_id: string; kind: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { kind } = await params;
  return { title: `${OBJECT_KIND_TITLES[kind] ?? "Not found"} · Billing Service` };
}

/**
 * The list of one kind of billing object without a page of its own (products, prices, coupons,
 * payments, payment intents, refunds, checkout sessions). Any other segment is a 404 in the frame.
 */
export default async function ObjectListPage({ params }: Params) {
  const { account_id, kind } = await params;
  const title = OBJECT_KIND_TITLES[kind];
  if (!title) notFound();
  const group = OBJECT_KIND_GROUPS.find((kinds) => kinds.includes(kind)) ?? [];
  return (
    <>
      <nav aria-label="Related lists" className="mb-3 flex flex-wrap gap-1 text-sm">
        {group.map((other) => (
          <Link
            key={other}
            href={`/accounts/${account_id}/${other}`}
            aria-current={other === kind ? "page" : undefined}
            className={`rounded border px-2 py-0.5 ${other === kind ? "border-slate-900 bg-slate-900 text-white" : "border-slate-300 text-slate-700 hover:bg-slate-100"}`}
          >
            {OBJECT_KIND_TITLES[other]}
          </Link>
        ))}
      </nav>
      <PageHeader title={title} />
      <div className="space-y-4">
        <ObjectCreate accountId={account_id} slug={kind} />
        {/* The list reads its filters and page from the URL (useSearchParams): a Suspense boundary. */}
        <Suspense fallback={<Loading what={`Loading ${title.toLowerCase()}`} />}>
          <ObjectList accountId={account_id} slug={kind} />
        </Suspense>
      </div>
    </>
  );
}
