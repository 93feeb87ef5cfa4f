import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, chunkedCustomerPost } from "../helpers/api";
import { newMerchant, type Merchant } from "../helpers/merchant";
import { startApp, type RunningApp } from "../helpers/server";

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

/**
 * A 256 MB chunked upload to the real server, sent by a client that ignores the answer and keeps
 * pushing for as long as the server takes bytes: the 413 comes near the 1 MiB limit, and the
 * server's resident memory stays flat (it never buffers the body).
 */
describe("a 256 MB upload", () => {
  let app: RunningApp;
  let merchant: Merchant;
  beforeAll(async () => {
    // Its own process, so that nothing else the suite does moves its memory.
    app = await startApp({ DATABASE_URL: inject("databaseUrl") });
    merchant = await newMerchant();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it("is refused with 413 before it is sent, and the server's memory stays flat", { timeout: 120_000 }, async () => {
    const client = api(merchant.secret.token, `${app.baseUrl}/api`);
    // Warm up the route (code loading and caches are not the body's cost).
    for (let i = 0; i < 3; i++) await client.post("/customers", { email: `warm-${i}@example.com` });
    const before = residentBytes(app.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(app.pid))), 50);

    const outcome = await new Promise<{ status: number; body: string; answeredAfter: number; sent: number }>((resolve, reject) => {
      const request = chunkedCustomerPost(app.baseUrl, merchant.secret.token);
      const chunk = Buffer.alloc(256 * 1024, 0x20);
      let sent = 0;
      let answer: { status: number; body: string; answeredAfter: number } | undefined;
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
            return answer ? resolve({ ...answer, sent }) : reject(new Error(`No answer after ${sent} bytes`));
          }
          setTimeout(settle, 50);
        };
        settle();
      };
      request.on("response", (response) => {
        const answeredAfter = sent;
        let body = "";
        response.on("data", (data) => (body += data));
        response.on("end", () => (answer = { status: response.statusCode!, body, answeredAfter }));
      });
      // The server closing the connection ends the upload too.
      request.on("error", () => finish());
      request.on("close", () => finish());
      request.write('{"email":"big@example.com","name":"');
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
        request.end('"}', () => setTimeout(finish, 2_000));
      };
      pump();
    });
    clearInterval(sampler);
    peak = Math.max(peak, residentBytes(app.pid));

    expect(outcome.status).toBe(413);
    expect(JSON.parse(outcome.body)).toMatchObject({ status: 413, request_id: expect.stringMatching(/^req_/) });
    // The answer comes near the 1 MiB limit, long before the 256 MB are sent.
    expect(outcome.answeredAfter).toBeLessThan(32 * MB);
    const growth = peak - before;
    console.info(
      `upload: answered after ${(outcome.answeredAfter / MB).toFixed(1)} MB, ${(outcome.sent / MB).toFixed(1)} MB sent in all; ` +
        `server RSS ${(before / MB).toFixed(0)} MB before, peak +${(growth / MB).toFixed(1)} MB`,
    );
    expect(growth).toBeLessThan(64 * MB);
    // Nothing was created from it (only the three warm-up customers exist).
    expect((await client.get("/customers")).body.total).toBe(3);
  });
});
