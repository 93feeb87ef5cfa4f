import { spawn, type ChildProcess } from "node:child_process";
import { createServer as createHttpServer, type IncomingHttpHeaders, type Server } from "node:http";
import { createServer as createTcpServer, connect, type Server as TcpServer, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { apiBaseUrl, type Json, apiRoot } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { expectProblem } from "../helpers/problem";
import { eventually, refusedUrl } from "../helpers/receiver";

type Received = { headers: IncomingHttpHeaders; raw: string; body: Json };

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A plain-HTTP receiver on loopback, as a developer would run with `listen`. */
async function localReceiver() {
  const received: Received[] = [];
  const server: Server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      received.push({ headers: req.headers, raw, body: JSON.parse(raw) });
      res.writeHead(202).end("thanks");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, received };
}

/** A TCP proxy in front of the API that can be cut and restored (a lost connection). */
async function cuttableProxy(target: URL) {
  const sockets = new Set<Socket>();
  let server: TcpServer | null = null;
  let port = 0;
  const open = async () => {
    server = createTcpServer((client) => pipeTo(target, client, sockets));
    await new Promise<void>((resolve) => server!.listen(port, "127.0.0.1", resolve));
    port = (server!.address() as AddressInfo).port;
  };
  const cut = async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server!.close(() => resolve()));
  };
  await open();
  cleanups.push(() => cut().catch(() => undefined));
  return { url: () => apiRoot(`http://127.0.0.1:${port}`), cut, restore: open };
}

/** Pipes a client's connection to `target`, keeping both sockets in `sockets` while they are open. */
function pipeTo(target: URL, client: Socket, sockets: Set<Socket>): void {
  const upstream = connect(Number(target.port), target.hostname);
  for (const socket of [client, upstream]) {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  }
  client.pipe(upstream).pipe(client);
}

/**
 * A port in front of the API that first refuses connections (a server still starting), then
 * accepts them but answers nothing until `release` (a dev server compiling its route).
 */
async function slowStartingApi(target: URL) {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const held: Socket[] = [];
  const sockets = new Set<Socket>();
  let released = false;
  const pipe = (client: Socket) => pipeTo(target, client, sockets);
  const server = createTcpServer((client) => {
    client.pause();
    if (released) pipe(client);
    else held.push(client);
  });
  cleanups.push(async () => {
    for (const socket of [...sockets, ...held]) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return {
    url: apiRoot(`http://127.0.0.1:${port}`),
    accept: () => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)),
    held: () => held.length,
    release: () => {
      released = true;
      for (const client of held.splice(0)) {
        pipe(client);
        client.resume();
      }
    },
  };
}

function startListen(args: string[]) {
  const child: ChildProcess = spawn("npm", ["run", "--silent", "listen", "--", ...args], {
    env: { ...process.env, FORCE_COLOR: "0" },
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {
        // already gone
      }
    }
    await exited;
  };
  cleanups.push(stop);
  return {
    output: () => stdout,
    errors: () => stderr,
    stop,
    /** The exit code, once it exits by itself. */
    exited,
    async ready(): Promise<string> {
      const line = await eventually(
        async () => stdout,
        (out) => /Ready! Your webhook signing secret is whsec_\S+/.test(out) || child.exitCode !== null,
        30_000,
      );
      const match = /Ready! Your webhook signing secret is (whsec_\S+)/.exec(line);
      if (!match) throw new Error(`listen did not start: ${stdout}${stderr}`);
      return match[1]!;
    },
  };
}

function verify(secret: string, request: Received) {
  const headers = Object.fromEntries(Object.entries(request.headers).map(([k, v]) => [k, String(v)]));
  return new Webhook(secret).verify(request.raw, headers);
}

describe("npm run listen", () => {
  it("forwards a new event to a local HTTP URL within seconds, signed like a delivery", async () => {
    const merchant = await newMerchant();
    const receiver = await localReceiver();
    const listen = startListen([
      "--base-url", apiBaseUrl(), "--token", merchant.secret.token, "--forward-to", receiver.url,
      "--events", "customer.created,customer.updated",
    ]);
    const secret = await listen.ready();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

    const { body: customer } = await merchant.client.post("/customers", { email: "listen@example.com" });
    await merchant.client.post("/products", { name: "Not subscribed" });
    const [request] = await eventually(async () => receiver.received, (r) => r.length >= 1, 10_000);
    expect(request!.body).toMatchObject({ type: "customer.created", sequence: 1, data: { object: { id: customer.id } } });
    expect(verify(secret, request!)).toEqual(request!.body);
    expect(request!.headers["webhook-id"]).toBe(request!.body.id);
    expect(request!.headers["x-webhook-event-id"]).toBe(request!.body.id);
    expect(request!.headers["x-webhook-event-type"]).toBe("customer.created");
    expect(request!.headers["x-webhook-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    // The same body a real delivery carries.
    const real = (await merchant.client.get(`/${merchant.accountId}/events/${request!.body.id}`)).body;
    expect(request!.body).toMatchObject({ id: real.id, object: "event", created: Math.floor(Date.parse(real.created) / 1000) });

    await eventually(async () => listen.output(), (out) => out.includes(`${request!.body.id}  seq 1  → 202`));
    // product.created is not forwarded: a customer created after it arrives next (waited for, not a
    // sleep), and nothing came between.
    const { body: later } = await merchant.client.post("/customers", { email: "listen-later@example.com" });
    const received = await eventually(async () => receiver.received, (r) => r.length >= 2, 10_000);
    expect(received.map((r) => [r.body.type, r.body.data.object.id])).toEqual([
      ["customer.created", customer.id],
      ["customer.created", later.id],
    ]);
  });

  it("waits for an API that is still starting, then still compiling its first answer, and says so", async () => {
    const merchant = await newMerchant();
    const receiver = await localReceiver();
    const api = await slowStartingApi(new URL(apiBaseUrl()));
    const listen = startListen(["--base-url", api.url, "--token", merchant.secret.token, "--forward-to", receiver.url]);
    // Refused: it waits, saying for what.
    await eventually(async () => listen.errors(), (err) => err.includes(`Waiting for the API at ${api.url}`));
    // Accepted but unanswered (as `npm run dev` compiling the route): it keeps waiting.
    await api.accept();
    await eventually(async () => api.held(), (held) => held >= 1);
    api.release();
    await listen.ready();
    const { body: customer } = await merchant.client.post("/customers", { email: "slow-start@example.com" });
    await eventually(async () => receiver.received, (r) => r.some((request) => request.body.data.object.id === customer.id));
  });

  it("loses nothing across a lost connection, nor across a restart with --cursor", async () => {
    const merchant = await newMerchant();
    const receiver = await localReceiver();
    const proxy = await cuttableProxy(new URL(apiBaseUrl()));
    const common = ["--token", merchant.secret.token, "--forward-to", receiver.url];
    const listen = startListen(["--base-url", proxy.url(), ...common]);
    const secret = await listen.ready();

    const ids: string[] = [];
    const create = async (email: string) => ids.push((await merchant.client.post("/customers", { email })).body.id);
    await create("a@example.com");
    await eventually(async () => receiver.received, (r) => r.length >= 1);

    await proxy.cut();
    await create("b@example.com");
    await create("c@example.com");
    await eventually(async () => listen.errors(), (err) => err.includes("Connection to the API lost"));
    await proxy.restore();
    await eventually(async () => receiver.received, (r) => r.length >= 3, 20_000);
    expect(listen.errors()).toContain("Reconnected");

    await listen.stop();
    const cursor = /Resume with --cursor (\S+)/.exec(listen.output())?.[1];
    expect(cursor).toMatch(/^evt_/);
    await create("d@example.com"); // while nothing listens
    const resumed = startListen(["--base-url", apiBaseUrl(), ...common, "--cursor", cursor!, "--secret", secret]);
    expect(await resumed.ready()).toBe(secret);
    await create("e@example.com");
    await eventually(async () => receiver.received, (r) => new Set(r.map((x) => x.body.data.object.id)).size >= 5, 20_000);

    const forwarded = receiver.received.map((r) => r.body.data.object.id);
    expect(new Set(forwarded)).toEqual(new Set(ids));
    for (const request of receiver.received) expect(verify(secret, request)).toEqual(request.body);
  });

  it("--trigger invoice.paid sends one test event of that type to the URL, the dashboard's sample, and exits", async () => {
    const merchant = await newMerchant();
    const receiver = await localReceiver();
    const listen = startListen([
      "--base-url", apiBaseUrl(), "--token", merchant.secret.token, "--forward-to", receiver.url, "--trigger", "invoice.paid",
    ]);
    const secret = await listen.ready();
    // Something else happening meanwhile is not forwarded by a trigger run.
    await merchant.client.post("/customers", { email: "not-forwarded@example.com" });
    expect(await listen.exited).toBe(0);

    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(verify(secret, request!)).toEqual(request!.body);
    expect(request!.body).toMatchObject({ object: "event", type: "invoice.paid", test: true, sequence: 1, data: { object: { object: "invoice", status: "paid" } } });
    expect(listen.output()).toContain(`Triggered invoice.paid: test event ${request!.body.id}`);
    expect(listen.output()).toContain(`invoice.paid  ${request!.body.id}  seq 1  → 202`);

    // The stored event is the account's, marked as a test, and went to none of its endpoints.
    const event = (await merchant.client.get(`/${merchant.accountId}/events/${request!.body.id}`)).body;
    expect(event).toMatchObject({ type: "invoice.paid", metadata: { test: true } });
    expect((await merchant.client.get(`/${merchant.accountId}/events/${event.id}/deliveries`)).body).toEqual([]);

    // The same sample as the dashboard's "Send test event" picker (POST …/webhook-endpoints/{id}/test).
    const endpoint = (await merchant.client.post(`/${merchant.accountId}/webhook-endpoints`, { url: await refusedUrl(), events: ["invoice.paid"] })).body;
    const delivery = (await merchant.client.post(`/${merchant.accountId}/webhook-endpoints/${endpoint.id}/test`, { type: "invoice.paid" })).body;
    const picked = (await merchant.client.get(`/${merchant.accountId}/events/${delivery.event_id}`)).body;
    // Each sample is an object of its own: equal but for its id, wherever it appears.
    const anonymous = (object: Json) => JSON.stringify(object).replaceAll(object.id, "in_sample");
    expect(anonymous(request!.body.data.object)).toBe(anonymous(picked.data));
  });

  it("--trigger refuses an unknown type clearly, creating nothing", async () => {
    const merchant = await newMerchant();
    const receiver = await localReceiver();
    const listen = startListen([
      "--base-url", apiBaseUrl(), "--token", merchant.secret.token, "--forward-to", receiver.url, "--trigger", "invoice.exploded",
    ]);
    expect(await listen.exited).toBe(1);
    expect(listen.errors()).toMatch(/HTTP 422/);
    expect(receiver.received).toHaveLength(0);
    expect((await merchant.client.get(`/${merchant.accountId}/events`)).body.items).toEqual([]);
  });

  it("refuses a bad token, a bad cursor and a public plain-HTTP URL clearly", async () => {
    const merchant = await newMerchant();
    expectProblem(await merchant.client.get(`/events/feed?after=nope&wait=0`), 422, /after/);
    expectProblem(await merchant.client.get(`/events/feed?types=customer.exploded&wait=0`), 422, /customer\.exploded/);
    expectProblem(await merchant.client.get(`/events/feed?wait=99`), 400, /wait/);
    const scoped = await merchant.client.get(`/${merchant.accountId}/events/feed?wait=0`);
    expect(scoped.body).toEqual({ object: "event_feed", items: [], next_cursor: expect.stringMatching(/^evt_prod_/) });

    const badToken = startListen(["--base-url", apiBaseUrl(), "--token", "st_prod_nope", "--forward-to", "http://127.0.0.1:9/x"]);
    await expect(badToken.ready()).rejects.toThrow(/did not start/);
    expect(badToken.errors()).toMatch(/HTTP 401/);

    const publicHttp = startListen(["--base-url", apiBaseUrl(), "--token", merchant.secret.token, "--forward-to", "http://example.com/x"]);
    await expect(publicHttp.ready()).rejects.toThrow(/did not start/);
    expect(publicHttp.errors()).toMatch(/Plain HTTP is allowed only for local addresses/);
  });
});
