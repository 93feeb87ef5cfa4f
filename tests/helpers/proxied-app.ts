import { inject } from "vitest";
import { newMerchant, type Merchant } from "./merchant";
import { startApp, type RunningApp } from "./server";
import { TcpProxy } from "./tcp-proxy";

/** A fresh app whose database connections go through a proxy the test controls. */
export async function appBehindProxy(
  search: Record<string, string> = {},
  env: Record<string, string> = {},
): Promise<{ proxy: TcpProxy; app: RunningApp; merchant: Merchant; databaseUrl: string }> {
  const url = new URL(inject("databaseUrl"));
  const proxy = await TcpProxy.start({ host: url.hostname, port: Number(url.port || 5432) });
  url.port = String(proxy.port);
  for (const [name, value] of Object.entries(search)) url.searchParams.set(name, value);
  const app = await startApp({ DATABASE_URL: url.toString(), ...env });
  return { proxy, app, merchant: await newMerchant(), databaseUrl: inject("databaseUrl") };
}

/** The response and how long it took. */
export async function timed<T>(call: () => Promise<T>): Promise<{ response: T; ms: number }> {
  const started = Date.now();
  const response = await call();
  return { response, ms: Date.now() - started };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
