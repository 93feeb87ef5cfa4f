import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { databaseKind, getDb, POOL_NAMES, postgresClient, type Database } from "@/db/client";
import { config } from "@/lib/config";

/**
 * The delivery driver's own connections (PostgreSQL): claims and attempt records never wait
 * behind API requests for a connection, nor the API behind a delivery backlog. It also carries the
 * LISTEN that wakes this instance when another one commits deliveries. The embedded database
 * (PGlite) is one in-process instance: the driver shares it.
 */
export type DeliveryPool = {
  db: Database;
  /** Calls `onWake` whenever another instance announces due deliveries; null without PostgreSQL. */
  listen: ((onWake: () => void) => Promise<void>) | null;
  /** Announces due deliveries to the other instances (a no-op without PostgreSQL). */
  notify: () => Promise<void>;
};

export const WAKE_CHANNEL = "webhook_deliveries_due";

const POOL = Symbol.for("billing-service.delivery-pool");
type GlobalWithPool = typeof globalThis & { [POOL]?: Promise<DeliveryPool> };

/** This process's id in NOTIFY payloads, so that an instance does not wake itself twice. */
const INSTANCE = `${process.pid}-${Math.random().toString(36).slice(2, 10)}`;

async function open(): Promise<DeliveryPool> {
  const { databaseUrl, webhooks, database } = config();
  if (!databaseUrl || (await databaseKind()) !== "postgres") {
    return { db: await getDb(), listen: null, notify: async () => {} };
  }
  // Every wait bounded, and statements prepared, as for the API (db/client.ts, db/prepared.ts): the
  // driver runs a few statements of constant text thousands of times a second (the claim, the
  // attempt record, the batch's events). Each run is still planned for its parameters (as every
  // pool's: a generic plan of the claim could not know how the backlog is spread).
  const client = postgresClient(databaseUrl, {
    max: webhooks.dbPoolSize,
    pooled: database.pooled,
    applicationName: POOL_NAMES.webhooks,
    idleSeconds: database.idleSeconds,
    connectSeconds: database.connectSeconds,
  });
  const db = drizzlePostgres(client) as unknown as Database;
  return {
    db,
    listen: async (onWake) => {
      await client.listen(WAKE_CHANNEL, (payload) => {
        if (payload !== INSTANCE) onWake();
      });
    },
    notify: async () => {
      await client.notify(WAKE_CHANNEL, INSTANCE);
    },
  };
}

export function deliveryPool(): Promise<DeliveryPool> {
  const store = globalThis as GlobalWithPool;
  if (!store[POOL]) {
    store[POOL] = open();
    store[POOL].catch(() => {
      delete store[POOL];
    });
  }
  return store[POOL];
}
