import { afterAll, beforeAll, inject } from "vitest";
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

type ProxiedApp = Awaited<ReturnType<typeof appBehindProxy>>;

/**
 * `appBehindProxy` for a describe block: started before its tests, stopped (and its proxy cut)
 * after them. Read the fields inside the tests, once `beforeAll` has filled them in.
 */
export function appBehindProxyForSuite(search: Record<string, string> = {}, env: Record<string, string> = {}): ProxiedApp {
  const suite = {} as ProxiedApp;
  beforeAll(async () => {
    Object.assign(suite, await appBehindProxy(search, env));
  });
  afterAll(async () => {
    await suite.app?.stop();
    await suite.proxy?.cut();
  });
  return suite;
}

/** The response and how long it took. */
export async function timed<T>(call: () => Promise<T>): Promise<{ response: T; ms: number }> {
  const started = Date.now();
  const response = await call();
  return { response, ms: Date.now() - started };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
