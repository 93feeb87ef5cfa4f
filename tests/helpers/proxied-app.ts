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

/**
 * How long a fault test waits for an answer before it calls the app hung. Not a speed claim (how
 * fast the app answers during a database fault is `npm run bench:db-faults`' to measure): the bugs
 * these tests guard against hang for minutes or forever (a query queued until `max_lifetime`, 30
 * min; a silent socket, for ever), and a loaded machine may take many seconds to answer.
 */
export const HUNG_AFTER_MS = 30_000;

/** The call's result, or a failure that says it hung: answered, not how fast. */
export async function answered<T>(call: () => Promise<T>, what = "the request"): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${HUNG_AFTER_MS / 1000} s: the app hung`)), HUNG_AFTER_MS);
  });
  try {
    return await Promise.race([call(), hung]);
  } finally {
    clearTimeout(timer);
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
