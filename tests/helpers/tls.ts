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
