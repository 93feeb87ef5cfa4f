import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, describe, expect, it } from "vitest";
import { apiBaseUrl } from "../helpers/api";
import { newMerchant } from "../helpers/merchant";
import { eventually } from "../helpers/receiver";
import { TcpProxy } from "../helpers/tcp-proxy";

/*
 * `npm run logs` (scripts/logs.ts) against the running test app: it prints new requests as they
 * are recorded, with its filters, resumes after a lost connection without repeating a line, and
 * stops on ^C.
 */
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

function startTail(args: string[]) {
  // `npm run logs` is `node scripts/run.mjs scripts/logs.ts`, which runs the script in its own process: without npm in
  // between, ^C reaches it and its exit code is its own.
  const child: ChildProcess = spawn(process.execPath, ["scripts/run.mjs", "scripts/logs.ts", "--interval-ms", "200", ...args], {
    env: { ...process.env, FORCE_COLOR: "0" },
    detached: true,
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const interrupt = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(-child.pid!, "SIGINT");
      } catch {
        // already gone
      }
    }
    return exited;
  };
  cleanups.push(async () => void (await interrupt()));
  return {
    output: () => stdout,
    errors: () => stderr,
    interrupt,
    ready: () => eventually(async () => stderr, (text) => text.includes("Tailing") || child.exitCode !== null, 30_000),
    /** The lines printed so far that name `requestId`. */
    linesOf: (requestId: string) => stdout.split("\n").filter((line) => line.includes(requestId)),
  };
}

describe("npm run logs", () => {
  it("prints each new request once, as time, status, method, path, duration and id, with its filters", async () => {
    const merchant = await newMerchant();
    const everything = startTail(["--base-url", apiBaseUrl(), "--token", merchant.secret.token]);
    const errorsOnly = startTail(["--base-url", new URL(apiBaseUrl()).origin, "--token", merchant.secret.token, "--status", "4xx", "--operation", "getCustomer"]);
    await everything.ready();
    await errorsOnly.ready();

    const created = await merchant.client.post(`/${merchant.accountId}/customers`, { email: "tail@example.com" });
    const missing = await merchant.client.get(`/${merchant.accountId}/customers/cus_prod_tail`);
    const createdId = created.headers.get("x-request-id")!;
    const missingId = missing.headers.get("x-request-id")!;

    await eventually(async () => everything.linesOf(missingId), (lines) => lines.length > 0);
    await eventually(async () => everything.linesOf(createdId), (lines) => lines.length > 0);
    expect(everything.linesOf(createdId)).toEqual([
      expect.stringMatching(new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z  201  POST   \\S*/${merchant.accountId}/customers  \\d+ms  ${createdId}$`)),
    ]);
    expect(everything.linesOf(missingId)).toEqual([expect.stringMatching(/ 404  GET .* not_found$/)]);

    await eventually(async () => errorsOnly.linesOf(missingId), (lines) => lines.length === 1);
    expect(errorsOnly.linesOf(createdId)).toEqual([]);

    expect(await everything.interrupt()).toBe(0);
    expect(everything.errors()).toContain("Stopped.");
  });

  it("resumes after a lost connection and prints what happened meanwhile, once", async () => {
    const merchant = await newMerchant();
    const app = new URL(apiBaseUrl());
    const proxy = await TcpProxy.start({ host: app.hostname, port: Number(app.port) });
    cleanups.push(() => proxy.cut());
    const tail = startTail(["--base-url", `http://127.0.0.1:${proxy.port}/api`, "--token", merchant.secret.token]);
    await tail.ready();
    const before = await merchant.client.get(`/${merchant.accountId}/customers/cus_prod_before`);
    await eventually(async () => tail.linesOf(before.headers.get("x-request-id")!), (lines) => lines.length === 1);

    await proxy.cut();
    await eventually(async () => tail.errors(), (text) => text.includes("Connection lost"));
    const during = await merchant.client.get(`/${merchant.accountId}/customers/cus_prod_during`);
    await proxy.restore();

    await eventually(async () => tail.linesOf(during.headers.get("x-request-id")!), (lines) => lines.length === 1);
    expect(tail.errors()).toContain("Reconnected.");
    expect(tail.linesOf(before.headers.get("x-request-id")!)).toHaveLength(1);
  });
});
