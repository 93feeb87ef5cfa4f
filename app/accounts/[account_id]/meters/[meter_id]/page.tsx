import type { Metadata } from "next";
import { MeterDetail } from "@/components/meters/meter-detail";

export async function generateMetadata({ params }: { params: Promise<{ meter_id: string }> }): Promise<Metadata> {
  const { meter_id } = await params;
  return { title: `${meter_id} · Meters · Billing Service` };
}

/** The layout has already checked the session and that the account is the user's. */
export default async function MeterPage({ params }: { params: Promise<{ account_id: string; meter_id: string }> }) {
  const { account_id, meter_id } = await params;
  return <MeterDetail accountId={account_id} meterId={meter_id} />;
}
