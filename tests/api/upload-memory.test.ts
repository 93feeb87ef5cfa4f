import { readdirSync, readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, apiRoot } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { PROJECT_ROOT, startApp, type RunningApp } from "../helpers/server";
import { authUrl } from "../helpers/sign-in";

const MB = 1024 * 1024;
const UPLOAD_BYTES = 256 * MB;

/** Resident memory of the process and its descendants, in bytes (Linux /proc). */
function residentBytes(pid: number): number {
  let total = 0;
  const visit = (id: number) => {
    try {
      const status = readFileSync(`/proc/${id}/status`, "utf8");
      total += Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0) * 1024;
      for (const task of readdirSync(`/proc/${id}/task`)) {
        const children = readFileSync(`/proc/${id}/task/${task}/children`, "utf8").trim();
        for (const child of children ? children.split(/\s+/) : []) visit(Number(child));
      }
    } catch {
      // the process is gone
    }
  };
  visit(pid);
  return total;
}

type Upload = { path: string; headers: Record<string, string>; prefix: string };
type Outcome = { status: number; body: string; contentType: string | undefined; answeredAfter: number; sent: number };

/**
 * A 256 MB chunked upload to the real server, sent by a client that ignores the answer and keeps
 * pushing for as long as the server takes bytes.
 */
function push(baseUrl: string, upload: Upload): Promise<Outcome> {
  const base = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const request = httpRequest({
      host: base.hostname,
      port: base.port,
      method: "POST",
      path: upload.path,
      headers: { ...upload.headers, "Transfer-Encoding": "chunked" },
    });
    const chunk = Buffer.alloc(256 * 1024, 0x61);
    let sent = 0;
    let answer: Omit<Outcome, "sent"> | undefined;
    let stalled: NodeJS.Timeout | undefined;
    let finished = false;
    // The upload is over (closed, refused or stalled): wait for the whole answer, then hang up.
    const finish = () => {
      if (finished) return;
      finished = true;
      clearTimeout(stalled);
      const until = Date.now() + 5_000;
      const settle = () => {
        if (answer || Date.now() > until) {
          request.destroy();
          return answer ? resolve({ ...answer, sent }) : reject(new Error(`${upload.path}: no answer after ${sent} bytes`));
        }
        setTimeout(settle, 50);
      };
      settle();
    };
    request.on("response", (response) => {
      const answeredAfter = sent;
      let body = "";
      response.on("data", (data) => (body += data));
      response.on("end", () => (answer = { status: response.statusCode!, body, contentType: response.headers["content-type"], answeredAfter }));
    });
    // The server closing the connection ends the upload too.
    request.on("error", () => finish());
    request.on("close", () => finish());
    request.write(upload.prefix);
    const pump = () => {
      clearTimeout(stalled);
      while (sent < UPLOAD_BYTES) {
        sent += chunk.length;
        if (!request.write(chunk)) {
          // A server that stopped reading leaves the client blocked: that ends the upload as well.
          stalled = setTimeout(() => (answer ? finish() : undefined), 5_000);
          return void request.once("drain", pump);
        }
      }
      request.end("", () => setTimeout(finish, 2_000));
    };
    pump();
  });
}

/**
 * Each route stops reading a body at its cap (1 MiB) and answers 413 long before the 256 MB are
 * sent; the server's resident memory stays flat (no body is ever buffered beyond the cap).
 */
describe("256 MB uploads", () => {
  let app: RunningApp;
  let merchant: Merchant;
  beforeAll(async () => {
    // Its own process, so that nothing else the suite does moves its memory.
    app = await startApp({ DATABASE_URL: inject("databaseUrl") });
    merchant = await newMerchant();
    // Warm up the routes (code loading and caches are not the bodies' cost).
    const client = api(merchant.secret.token, apiRoot(app.baseUrl));
    for (let i = 0; i < 3; i++) await client.post("/customers", { email: `warm-${i}@example.com` });
    for (let i = 0; i < 3; i++) await fetch(authUrl(app.baseUrl, "/csrf"));
    await fetch(`${app.baseUrl}/signup`);
  });
  afterAll(async () => {
    await app?.stop();
  });

  /** Runs the uploads at once while sampling the server's memory every 50 ms. */
  async function measured(uploads: Upload[]): Promise<{ outcomes: Outcome[]; growth: number }> {
    const before = residentBytes(app.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(app.pid))), 50);
    try {
      const outcomes = await Promise.all(uploads.map((upload) => push(app.baseUrl, upload)));
      peak = Math.max(peak, residentBytes(app.pid));
      const growth = peak - before;
      console.info(
        `${uploads.map((u) => u.path).join(", ")}: answered after ${outcomes.map((o) => (o.answeredAfter / MB).toFixed(1)).join(", ")} MB, ` +
          `${outcomes.map((o) => (o.sent / MB).toFixed(1)).join(", ")} MB sent; server RSS ${(before / MB).toFixed(0)} MB before, peak +${(growth / MB).toFixed(1)} MB`,
      );
      return { outcomes, growth };
    } finally {
      clearInterval(sampler);
    }
  }

  function expectRefused(outcome: Outcome, problem: boolean): void {
    expect(outcome.status, outcome.body.slice(0, 300)).toBe(413);
    if (problem) {
      expect(outcome.contentType).toBe("application/problem+json");
      expect(JSON.parse(outcome.body)).toMatchObject({ status: 413, request_id: expect.stringMatching(/^req_/) });
    }
    // The answer comes near the 1 MiB limit, long before the 256 MB are sent.
    expect(outcome.answeredAfter).toBeLessThan(32 * MB);
  }

  it("an API operation refuses it with 413 and creates nothing", { timeout: 120_000 }, async () => {
    const { outcomes, growth } = await measured([
      {
        path: "/api/customers",
        headers: { Authorization: `Bearer ${merchant.secret.token}`, "Content-Type": "application/json" },
        prefix: '{"email":"big@example.com","name":"',
      },
    ]);
    expectRefused(outcomes[0]!, true);
    expect(growth).toBeLessThan(50 * MB);
    // Nothing was created from it (only the three warm-up customers exist).
    expect((await api(merchant.secret.token, apiRoot(app.baseUrl)).get("/customers")).body.total).toBe(3);
  });

  it("three at once to next-auth's sign-in, before any authentication, are refused at the cap", { timeout: 180_000 }, async () => {
    const signIn: Upload = {
      path: "/api/auth/callback/credentials",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      prefix: "email=big%40example.com&password=",
    };
    const { outcomes, growth } = await measured([signIn, signIn, signIn]);
    for (const outcome of outcomes) expectRefused(outcome, true);
    expect(growth).toBeLessThan(50 * MB);
  });

  it("a server action, a page and the Inngest route stop reading at their caps too", { timeout: 180_000 }, async () => {
    const manifest = JSON.parse(readFileSync(path.join(PROJECT_ROOT, ".next/server/server-reference-manifest.json"), "utf8")) as {
      node: Record<string, { exportedName?: string }>;
    };
    const actionId = Object.entries(manifest.node).find(([, action]) => action.exportedName === "signUpAction")?.[0];
    expect(actionId).toBeDefined();
    const { outcomes, growth } = await measured([
      {
        path: "/signup",
        headers: { "Next-Action": actionId!, "Content-Type": "text/plain;charset=UTF-8", Accept: "text/x-component", Origin: app.baseUrl },
        prefix: '[{"email":"big@example.com","name":"',
      },
      { path: "/signin", headers: { "Content-Type": "application/x-www-form-urlencoded" }, prefix: "a=" },
      { path: "/api/inngest", headers: { "Content-Type": "application/json" }, prefix: '{"event":"' },
    ]);
    expectRefused(outcomes[0]!, false);
    expectRefused(outcomes[1]!, false);
    expectRefused(outcomes[2]!, true);
    expect(growth).toBeLessThan(50 * MB);
  });
});
