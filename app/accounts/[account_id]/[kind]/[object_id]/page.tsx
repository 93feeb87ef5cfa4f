import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { OBJECT_KIND_TITLES } from "@/components/objects/titles";
import { ObjectDetail } from "@/components/objects/object-detail";

type Params = { params: Promise<{ account_id: string; kind: string; object_id: string }> };

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const { kind, object_id } = await params;
  return { title: `${decodeURIComponent(object_id)} · ${OBJECT_KIND_TITLES[kind] ?? "Not found"} · Billing Service` };
}

export default async function ObjectDetailPage({ params }: Params) {
  const { account_id, kind, object_id } = await params;
  if (!OBJECT_KIND_TITLES[kind]) notFound();
  return <ObjectDetail accountId={account_id} slug={kind} id={object_id} />;
}
