import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { getDb } from "@/db/client";
import { api, apiRoot, type Json } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { startApp, type RunningApp } from "../helpers/server";

/*
 * Group commit of one-event usage ingests (docs/usage-billing.md, "Storage and scale"): concurrent
 * `POST /api/usage-events` of one account share one statement, and each request still answers as
 * it would alone. An app of this file's own, logging at debug, shows the groups it wrote.
 */

let app: RunningApp;
beforeAll(async () => {
  app = await startApp({ DATABASE_URL: inject("databaseUrl"), LOG_LEVEL: "debug" });
});
afterAll(async () => {
  await app?.stop();
});

/** The sizes of the groups the app wrote since `from` (an offset into its output). */
function groupsSince(from: number): number[] {
  return app
    .output()
    .slice(from)
    .split("\n")
    .flatMap((line) => {
      try {
        const entry = JSON.parse(line) as { msg?: string; events?: number };
        return entry.msg === "usage group committed" && typeof entry.events === "number" ? [entry.events] : [];
      } catch {
        return [];
      }
    });
}

async function meteredMerchant(name: string) {
  const merchant = await newMerchant();
  const client = api(merchant.secret.token, apiRoot(app.baseUrl));
  const customer = (await client.post("/customers", { email: `${name}@example.com` })).body.id as string;
  const meter = (await client.post("/meters", { event_name: name, display_name: name, aggregation: "sum" })).body.id as string;
  const usage = async () => (await client.get(`/customers/${customer}/usage?meter=${meter}`)).body.value as number;
  return { merchant, client, customer, meter, usage };
}

describe("group commit of one-event usage ingests", () => {
  it("answers each of 300 concurrent requests as it would alone: one accepted per identifier, repeats duplicate, other bodies a conflict, invalid ones refused alone", { timeout: 120_000 }, async () => {
    const { client, customer, usage } = await meteredMerchant("grouped");
    const from = app.output().length;
    const event = (identifier: string, value: number, who = customer): Json => ({ event_name: "grouped", customer: who, identifier, payload: { value } });
    // 200 distinct events; 40 of them sent twice with the same body, 30 twice with another body,
    // and 30 for a customer that does not exist: all at once.
    const sends: { identifier: string; body: Json; kind: "distinct" | "same" | "other" | "invalid" }[] = [];
    for (let i = 0; i < 200; i++) sends.push({ identifier: `g${i}`, body: event(`g${i}`, (i % 9) + 1), kind: "distinct" });
    for (let i = 0; i < 40; i++) sends.push({ identifier: `g${i}`, body: event(`g${i}`, (i % 9) + 1), kind: "same" });
    for (let i = 40; i < 70; i++) sends.push({ identifier: `g${i}`, body: event(`g${i}`, 100 + i), kind: "other" });
    for (let i = 0; i < 30; i++) sends.push({ identifier: `bad${i}`, body: event(`bad${i}`, 1, "cus_test_doesnotexist"), kind: "invalid" });
    const answers = await Promise.all(sends.map(async (send) => ({ ...send, answer: await client.post("/usage-events", send.body) })));

    for (const { kind, answer } of answers.filter((sent) => sent.kind === "invalid")) {
      expect(answer.status, kind).toBe(422);
      expect(answer.body).toMatchObject({ error_code: "unknown_customer", request_id: expect.any(String) });
    }
    // Per identifier: exactly one accepted; a repeat with the same body is a duplicate, with another a 409.
    const byIdentifier = new Map<string, typeof answers>();
    for (const sent of answers.filter((candidate) => candidate.kind !== "invalid")) byIdentifier.set(sent.identifier, [...(byIdentifier.get(sent.identifier) ?? []), sent]);
    let expected = 0;
    for (const [identifier, sent] of byIdentifier) {
      const accepted = sent.filter(({ answer }) => answer.status === 200 && answer.body.status === "accepted");
      expect(accepted, identifier).toHaveLength(1);
      expected += (accepted[0]!.body as { payload: { value: number } }).payload.value;
      for (const other of sent.filter((candidate) => candidate !== accepted[0])) {
        const sameBody = JSON.stringify(other.body) === JSON.stringify(accepted[0]!.body);
        if (sameBody) expect(other.answer, identifier).toMatchObject({ status: 200, body: { identifier, status: "duplicate" } });
        else expect(other.answer, identifier).toMatchObject({ status: 409, body: { error_code: "usage_event_conflict" } });
      }
    }
    // The usage counts each accepted event once, with the accepted body's value.
    expect(await usage()).toBe(expected);
    // The requests shared statements: fewer groups than events, and some of several events.
    const groups = groupsSince(from);
    expect(groups.length).toBeGreaterThan(0);
    expect(Math.max(...groups)).toBeGreaterThan(1);
  });

  it("writes a group whose statement fails again one request at a time: the failing request alone fails, its neighbours are accepted", { timeout: 120_000 }, async () => {
    const { client, customer, usage } = await meteredMerchant("poisoned");
    // A database refusal of one identifier (as a full disk or a broken partition would refuse a row).
    const poison = `poison-${customer}`;
    const db = await getDb();
    await db.execute(
      sql.raw(`create or replace function test_poison_usage() returns trigger language plpgsql as $$
        begin if new.identifier = '${poison}' then raise exception 'poisoned row'; end if; return new; end $$`),
    );
    await db.execute(sql.raw(`create trigger test_poison_usage before insert on usage_event_keys for each row execute function test_poison_usage()`));
    try {
      const from = app.output().length;
      const identifiers = [...Array.from({ length: 60 }, (_, i) => `p${i}`), poison];
      // Several rounds until the poisoned event shared a group (the failure logged): on an idle
      // machine a round may be written one event at a time.
      let rounds = 0;
      const answers = new Map<string, { status: number; body: Json }>();
      while (!app.output().slice(from).includes("usage group commit failed") && rounds < 20) {
        rounds++;
        const sent = await Promise.all(
          identifiers.map(async (identifier) => [identifier, await client.post("/usage-events", { event_name: "poisoned", customer, identifier, payload: { value: 1 } })] as const),
        );
        for (const [identifier, answer] of sent) if (!answers.has(identifier) || answer.status === 200) answers.set(identifier, answer);
      }
      expect(app.output().slice(from)).toContain("usage group commit failed");
      expect(answers.get(poison)!.status).toBeGreaterThanOrEqual(500);
      expect(answers.get(poison)!.body).toMatchObject({ request_id: expect.any(String) });
      for (const identifier of identifiers.filter((candidate) => candidate !== poison)) {
        expect(answers.get(identifier), identifier).toMatchObject({ status: 200, body: { identifier } });
      }
      expect(await usage()).toBe(60);
    } finally {
      await db.execute(sql.raw(`drop trigger if exists test_poison_usage on usage_event_keys`));
      await db.execute(sql.raw(`drop function if exists test_poison_usage()`));
    }
  });
});
