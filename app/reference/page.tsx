import type { Metadata } from "next";
import { ApiReference } from "@/components/api-reference";

export const metadata: Metadata = { title: "API reference · Billing Service" };

export default function ReferencePage() {
  return <ApiReference specUrl="/api/openapi.json" />;
}
