import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * A self-signed certificate for 127.0.0.1 and localhost, made with openssl. The test run trusts it
 * through NODE_EXTRA_CA_CERTS (read by Node at start, so it is set before the app and the test
 * workers are spawned).
 */
export function makeTestCertificate(): { certPath: string; keyPath: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "billing-tls-"));
  const certPath = path.join(dir, "cert.pem");
  const keyPath = path.join(dir, "key.pem");
  execFileSync(
    "openssl",
    [
      "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
      "-keyout", keyPath, "-out", certPath,
      "-subj", "/CN=127.0.0.1",
      "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
    ],
    { stdio: "ignore" },
  );
  return { certPath, keyPath };
}

/** The run's certificate, published through the environment by the global setups. */
export function testTls(): { certPath: string; keyPath: string } {
  const certPath = process.env.TEST_TLS_CERT;
  const keyPath = process.env.TEST_TLS_KEY;
  if (!certPath || !keyPath) throw new Error("No test certificate: run through the test setup (TEST_TLS_CERT, TEST_TLS_KEY).");
  return { certPath, keyPath };
}

/**
 * Makes the certificate and publishes it to this process and every process it starts: servers
 * read TEST_TLS_CERT and TEST_TLS_KEY, clients trust it through NODE_EXTRA_CA_CERTS. What the
 * machine already trusted that way is kept beside it (a registry behind an inspecting proxy: the
 * SDK package test runs `npm install`).
 */
export function installTestCertificate(): void {
  const { certPath, keyPath } = makeTestCertificate();
  const trusted = process.env.NODE_EXTRA_CA_CERTS;
  const bundlePath = path.join(path.dirname(certPath), "trusted.pem");
  const before = trusted && existsSync(trusted) ? `${readFileSync(trusted, "utf8").trimEnd()}\n` : "";
  writeFileSync(bundlePath, before + readFileSync(certPath, "utf8"));
  process.env.NODE_EXTRA_CA_CERTS = bundlePath;
  process.env.TEST_TLS_CERT = certPath;
  process.env.TEST_TLS_KEY = keyPath;
}
