import { expect, inject } from "vitest";
import type { Client } from "./api";

/** The app's origin (the portal is beside /api). */
export const portalOrigin = (): string => inject("apiBaseUrl");

/** Opens a portal link without following its redirect: the Location and the cookie it sets. */
export async function openLink(url: string): Promise<{ status: number; location: string | null; setCookie: string | null; cookie: string | null }> {
  const response = await fetch(url, { redirect: "manual" });
  const setCookie = response.headers.get("set-cookie");
  const cookie = setCookie?.match(/^(portal_session=[^;]+)/)?.[1] ?? null;
  return { status: response.status, location: response.headers.get("location"), setCookie, cookie };
}

export type PortalSessionBody = { id: string; url: string; expires_at: string; created: string; return_url: string | null; flow: unknown };

export async function newPortalSession(client: Client, accountId: string, body: Record<string, unknown>): Promise<PortalSessionBody> {
  const response = await client.post(`/${accountId}/portal-sessions`, body);
  expect(response.status, response.text).toBe(201);
  return response.body as PortalSessionBody;
}

/** A monthly price of a new product. */
export async function monthlyPrice(client: Client, accountId: string, unitAmountAtom = 1000): Promise<string> {
  const product = (await client.post(`/${accountId}/products`, { name: `Plan ${unitAmountAtom}` })).body.id as string;
  const price = await client.post(`/${accountId}/prices`, { product, currency: "usd", unit_amount_atom: unitAmountAtom, type: "recurring", recurring: { interval: "month" } });
  expect(price.status, price.text).toBe(201);
  return price.body.id as string;
}
