import { X509Certificate } from "node:crypto";
import { mkdtemp, readFile, rm, stat } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import tls from "node:tls";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeHandshake, writeRunCertificates, type TlsFiles } from "../../../src/runner/tls.js";

// Real certificates, a real TLS server on loopback (Node's), a real handshake.
let tmp: string;
let run: TlsFiles;
let other: TlsFiles;

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), "pb-tls-"));
  run = await writeRunCertificates(path.join(tmp, "run"));
  other = await writeRunCertificates(path.join(tmp, "other"));
});

afterAll(async () => {
  await rm(tmp, { recursive: true, force: true });
});

/** A TLS server with `files`' certificate on a free loopback port, answering nothing. */
async function serve(files: TlsFiles): Promise<{ port: number; close: () => Promise<void> }> {
  const server = tls.createServer(
    { cert: await readFile(files.cert), key: await readFile(files.key), ALPNProtocols: ["h2", "http/1.1"] },
    (socket) => socket.end(),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe("the run's certificates", () => {
  it("a CA and a server certificate it signed, for 127.0.0.1 and localhost, the key private", async () => {
    const ca = new X509Certificate(await readFile(run.ca));
    const cert = new X509Certificate(await readFile(run.cert));
    expect(ca.ca).toBe(true);
    expect(cert.ca).toBe(false);
    expect(cert.checkIssued(ca)).toBe(true);
    expect(cert.verify(ca.publicKey)).toBe(true);
    expect(cert.checkIP("127.0.0.1")).toBe("127.0.0.1");
    expect(cert.checkHost("localhost")).toBe("localhost");
    expect(cert.checkIssued(new X509Certificate(await readFile(other.ca)))).toBe(false);
    const bundle = await readFile(run.certKey, "utf8");
    expect(bundle).toContain("BEGIN CERTIFICATE");
    expect(bundle).toContain("BEGIN PRIVATE KEY");
    expect((await stat(run.key)).mode & 0o077).toBe(0);
  });

  it("a handshake records the version, cipher and ALPN protocol", async () => {
    const server = await serve(run);
    try {
      const handshake = await probeHandshake("127.0.0.1", server.port, run, "nginx", ["h2"]);
      expect(handshake.version).toBe("TLSv1.3");
      expect(handshake.cipher).toMatch(/^TLS_/);
      expect(handshake.alpn).toBe("h2");
    } finally {
      await server.close();
    }
  });

  it("a certificate the run's CA did not sign fails the handshake, naming the proxy and the certificate", async () => {
    const server = await serve(other);
    try {
      const failed = probeHandshake("127.0.0.1", server.port, run, "nginx");
      await expect(failed).rejects.toThrow(
        `TLS handshake with nginx at 127.0.0.1:${server.port} failed: UNABLE_TO_VERIFY_LEAF_SIGNATURE; it should serve the run's certificate ${run.cert} (signed by the run's CA ${run.ca})`,
      );
    } finally {
      await server.close();
    }
  });
});
