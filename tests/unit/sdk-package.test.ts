/*
 * The SDK as a merchant gets it: `npm pack` (its prepack builds dist/ with the package's own
 * tsconfig), the tarball installed into a fresh project, imported by plain Node (no tsx, no
 * aliases) and type-checked by tsc against the tarball's .d.ts.
 */
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");
const work = mkdtempSync(path.join(tmpdir(), "sdk-package-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs a command; on failure the error says what it printed. */
function run(command: string, args: string[], cwd: string): string {
  try {
    return execFileSync(command, args, { cwd, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    const { stdout, stderr } = error as { stdout?: string; stderr?: string };
    throw new Error(`${command} ${args.join(" ")} failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
  }
}

let tarball = "";
let project = "";

beforeAll(() => {
  // A copy of the package (so the repository gets no dist/), building with the repository's TypeScript.
  const sdk = path.join(work, "sdk");
  cpSync(path.join(root, "packages/sdk"), sdk, { recursive: true, filter: (source) => !/[/\\](dist|node_modules)$|\.tgz$/.test(source) });
  symlinkSync(path.join(root, "node_modules"), path.join(sdk, "node_modules"), "dir");
  const out = path.join(work, "out");
  mkdirSync(out);
  run("npm", ["pack", "--pack-destination", out], sdk);
  tarball = path.join(out, readdirSync(out).find((name) => name.endsWith(".tgz"))!);

  project = path.join(work, "app");
  mkdirSync(project);
  writeFileSync(path.join(project, "package.json"), JSON.stringify({ name: "merchant-app", private: true, type: "module" }));
  // From the npm cache where it can (the repository's own install filled it with the tarballs);
  // the SDK's dependency ranges may still need their registry metadata, which a fresh machine's
  // cache lacks (`--offline` then fails with ENOTCACHED): those are fetched from the registry.
  run("npm", ["install", tarball, "--prefer-offline", "--no-audit", "--no-fund"], project);
}, 300_000);

describe("the packed SDK", { timeout: 120_000 }, () => {
  it("holds the built JavaScript, the declarations and the document, and no sources or generator", () => {
    const files = run("tar", ["-tzf", tarball], work).trim().split("\n").sort();
    for (const file of ["index.js", "index.d.ts", "client.js", "client.d.ts", "webhooks.js", "webhooks.d.ts", "generated/schema.d.ts", "generated/operations.js"]) {
      expect(files).toContain(`package/dist/${file}`);
    }
    expect(files).toEqual(expect.arrayContaining(["package/package.json", "package/README.md", "package/openapi.json"]));
    expect(files.filter((file) => file.startsWith("package/src/") || file.endsWith("generate.ts") || file.includes("tsconfig"))).toEqual([]);
  });

  it("is imported by plain Node: a call against a loopback server and a verified webhook", () => {
    writeFileSync(
      path.join(project, "check.mjs"),
      `
import { createServer } from "node:http";
import { Webhook } from "standardwebhooks";
import { Billing, BillingError, OPERATIONS, webhooks } from "@billing-service/sdk";

const server = createServer((req, res) => {
  const found = req.url === "/api/customers/cus_1";
  res.writeHead(found ? 200 : 404, { "Content-Type": "application/json" });
  res.end(JSON.stringify(found ? { id: "cus_1", auth: req.headers.authorization } : { title: "Not Found", status: 404, detail: "No such customer.", request_id: "req_1" }));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const billing = new Billing({ token: "sk_x", baseUrl: "http://127.0.0.1:" + server.address().port + "/api" });
const customer = await billing.call("getCustomerForTokenAccount", { path: { customer_id: "cus_1" } });
const missing = await billing.call("getCustomerForTokenAccount", { path: { customer_id: "cus_2" } }).catch((error) => error);
server.close();

const secret = "whsec_" + Buffer.alloc(32, 7).toString("base64");
const body = JSON.stringify({ id: "evt_1", object: "event", type: "invoice.paid", data: { object: { id: "in_1" } } });
// One instant for the signature and its header: read twice, a second's turn between them (a loaded
// machine, once) made the signed timestamp another than the one sent.
const signedAt = new Date();
const signature = new Webhook(secret).sign("evt_1", signedAt, body);
const headers = { "webhook-id": "evt_1", "webhook-timestamp": String(Math.floor(signedAt.getTime() / 1000)), "webhook-signature": signature };
const event = webhooks.verify(Buffer.from(body), headers, secret);
let tampered = "";
try { webhooks.verify(body.replace("in_1", "in_2"), headers, secret); } catch (error) { tampered = error.name; }

console.log(JSON.stringify({
  customer, operations: Object.keys(OPERATIONS).length,
  missing: { isBillingError: missing instanceof BillingError, status: missing.status, requestId: missing.requestId },
  event: event.type, tampered,
}));
`,
    );
    const result = JSON.parse(run("node", ["check.mjs"], project));
    expect(result).toEqual({
      customer: { id: "cus_1", auth: "Bearer sk_x" },
      operations: expect.any(Number),
      missing: { isBillingError: true, status: 404, requestId: "req_1" },
      event: "invoice.paid",
      tampered: "WebhookVerificationError",
    });
    expect(result.operations).toBeGreaterThan(100);
  });

  it("type-checks a consumer against the tarball's declarations (narrowing included)", () => {
    writeFileSync(
      path.join(project, "consumer.ts"),
      `
import { Billing, webhooks, type components } from "@billing-service/sdk";
const billing = new Billing({ token: "sk_x", baseUrl: "https://billing.example.com/api" });
export const customer: Promise<components["schemas"]["Customer"]> = billing.call("getCustomerForTokenAccount", { path: { customer_id: "cus_1" } });
// @ts-expect-error customer_id is required
export const wrong = billing.call("getCustomerForTokenAccount", { path: {} });
export function handle(body: string, headers: Headers, secret: string): number | null {
  const event = webhooks.verify(body, headers, secret);
  return event.type === "invoice.paid" ? event.data.object.total_amount_atom : null;
}
`,
    );
    const compilerOptions = { noEmit: true, strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2023", "dom"], types: [] };
    writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
    const tsc = path.join(root, "node_modules/typescript/bin/tsc");
    expect(() => run("node", [tsc, "-p", "."], project)).not.toThrow();
  });
});
