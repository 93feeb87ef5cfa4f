import type { Metadata } from "next";
import { ReferencePage } from "@/components/reference/reference-page";
import { openApiDocument } from "@/lib/server/openapi";

export const metadata: Metadata = { title: "API reference · Billing Service" };

// The document is fixed at build time, so the page is prerendered: plain HTML, no request to anyone.
export const dynamic = "force-static";

export default function Reference() {
  return <ReferencePage document={openApiDocument()} />;
}
