import { mkdir, readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import tls from "node:tls";
// @peculiar/x509 resolves its services with tsyringe, which needs the Reflect metadata API.
import "reflect-metadata";
import * as x509 from "@peculiar/x509";
import { usesTls } from "../results/protocols.js";
import type { Environment, Protocol } from "../results/schema.js";
import { UserError } from "../util/errors.js";

/**
 * TLS for a run: a throwaway certificate authority and a server certificate for 127.0.0.1 and
 * localhost, made when the run starts and written into its folder (`tls/`), never reused. The
 * proxies serve the server certificate; the load generators and the probes trust the CA.
 */

export interface TlsFiles {
  /** The run's CA certificate (PEM): what clients trust. */
  ca: string;
  /** The server certificate (PEM). */
  cert: string;
  /** Its private key (PKCS#8 PEM). */
  key: string;
  /** The certificate then the key in one file (HAProxy's `crt`). */
  certKey: string;
}

const ALGORITHM = { name: "ECDSA", namedCurve: "P-256", hash: "SHA-256" } as const;
const VALID_MS = 7 * 24 * 3600 * 1000;
const HANDSHAKE_TIMEOUT_MS = 5000;

/** The CA and the server certificate it signs, valid from a minute ago for a week. */
async function createCertificates(): Promise<{ ca: string; cert: string; key: string }> {
  const notBefore = new Date(Date.now() - 60_000);
  const notAfter = new Date(Date.now() + VALID_MS);
  const caKeys = await crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    name: "CN=proxybench run CA",
    keys: caKeys,
    notBefore,
    notAfter,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  });
  const serverKeys = await crypto.subtle.generateKey(ALGORITHM, true, ["sign", "verify"]);
  const server = await x509.X509CertificateGenerator.create({
    subject: "CN=127.0.0.1",
    issuer: ca.subject,
    publicKey: serverKeys.publicKey,
    signingKey: caKeys.privateKey,
    notBefore,
    notAfter,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        { type: "ip", value: "127.0.0.1" },
        { type: "dns", value: "localhost" },
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca),
    ],
  });
  const serverKey = await crypto.subtle.exportKey("pkcs8", serverKeys.privateKey);
  return {
    ca: ca.toString("pem"),
    cert: server.toString("pem"),
    key: x509.PemConverter.encode(serverKey, "PRIVATE KEY"),
  };
}

/** Makes the run's CA and server certificate in `dir` (created); returns the files' paths. */
export async function writeRunCertificates(dir: string): Promise<TlsFiles> {
  await mkdir(dir, { recursive: true });
  const made = await createCertificates();
  const files: TlsFiles = {
    ca: path.join(dir, "ca.pem"),
    cert: path.join(dir, "server.pem"),
    key: path.join(dir, "server.key"),
    certKey: path.join(dir, "server-with-key.pem"),
  };
  await writeFile(files.ca, made.ca);
  await writeFile(files.cert, made.cert);
  await writeFile(files.key, made.key, { mode: 0o600 });
  await writeFile(files.certKey, `${made.cert}\n${made.key}`, { mode: 0o600 });
  return files;
}

/**
 * The run's certificates when any of its protocols is over TLS (in DIR/tls, made anew even on
 * --resume: a run keeps no key longer than it runs), with the CA's PEM text for the probes.
 */
export async function runCertificates(
  dir: string,
  protocols: readonly Protocol[],
): Promise<(TlsFiles & { caPem: string }) | undefined> {
  if (!protocols.some(usesTls)) return undefined;
  const files = await writeRunCertificates(path.join(dir, "tls"));
  return { ...files, caPem: await readFile(files.ca, "utf8") };
}

/**
 * One TLS handshake with `host:port`, trusting only the run's CA and checking the name
 * 127.0.0.1. Throws a UserError naming `who` (the proxy) and the certificate file when the
 * handshake fails.
 */
export async function probeHandshake(
  host: string,
  port: number,
  files: TlsFiles,
  who: string,
  alpn: readonly string[] = ["h2", "http/1.1"],
): Promise<NonNullable<Environment["tls"]>[string]> {
  const ca = await readFile(files.ca, "utf8");
  return new Promise((resolve, reject) => {
    const fail = (why: string) =>
      reject(
        new UserError(
          `TLS handshake with ${who} at ${host}:${port} failed: ${why}; it should serve the run's certificate ${files.cert} (signed by the run's CA ${files.ca})`,
        ),
      );
    const socket = tls.connect({ host, port, ca, ALPNProtocols: [...alpn] });
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => {
      socket.destroy();
      fail(`no handshake within ${HANDSHAKE_TIMEOUT_MS} ms`);
    });
    socket.once("error", (err: NodeJS.ErrnoException) => fail(err.code ?? err.message));
    socket.once("secureConnect", () => {
      const cipher = socket.getCipher();
      const alpnProtocol = socket.alpnProtocol;
      resolve({
        version: socket.getProtocol() ?? "unknown",
        cipher: cipher.standardName ?? cipher.name,
        ...(typeof alpnProtocol === "string" ? { alpn: alpnProtocol } : {}),
      });
      socket.end();
    });
  });
}
