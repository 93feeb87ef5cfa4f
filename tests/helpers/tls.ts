import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
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
  const certPath = process.env.NODE_EXTRA_CA_CERTS;
  const keyPath = process.env.TEST_TLS_KEY;
  if (!certPath || !keyPath) throw new Error("No test certificate: run through the test setup (NODE_EXTRA_CA_CERTS, TEST_TLS_KEY).");
  return { certPath, keyPath };
}

/** Makes the certificate and publishes it to this process and every process it starts. */
export function installTestCertificate(): void {
  const { certPath, keyPath } = makeTestCertificate();
  process.env.NODE_EXTRA_CA_CERTS = certPath;
  process.env.TEST_TLS_KEY = keyPath;
}
