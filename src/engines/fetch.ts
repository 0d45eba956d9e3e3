import http2 from "node:http2";
import https from "node:https";
import { buffer } from "node:stream/consumers";

/**
 * The probes' and readiness checks' requests where Node's fetch cannot go: over TLS trusting
 * only the run's CA (fetch takes no CA of its own), and over HTTP/2 without TLS (h2c, prior
 * knowledge), which fetch does not speak.
 */

export interface FetchedResponse {
  status: number;
  /** By name in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
}

export interface TlsRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs: number;
}

/** The error a request that ran past its timeout rejects with, coded as a socket's would be. */
const timedOut = () => Object.assign(new Error("timed out"), { code: "ETIMEDOUT" });

/** Rejects with the transport or certificate error (its `code`, e.g. UNABLE_TO_VERIFY_LEAF_SIGNATURE). */
export function fetchOverTls(url: string, req: TlsRequest, ca: string): Promise<FetchedResponse> {
  return new Promise((resolve, reject) => {
    const request = https.request(
      url,
      { method: req.method ?? "GET", headers: req.headers ?? {}, ca, timeout: req.timeoutMs, agent: false },
      (res) =>
        void buffer(res).then(
          (body) => resolve({ status: res.statusCode ?? 0, headers: joinedHeaders(res.headers), body }),
          reject,
        ),
    );
    request.on("timeout", () => request.destroy(timedOut()));
    request.on("error", reject);
    request.end(req.body);
  });
}

/** One request over h2c (HTTP/2 with prior knowledge); rejects with the transport error. */
export function fetchOverH2c(url: string, req: TlsRequest): Promise<FetchedResponse> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const session = http2.connect(target.origin);
    const fail = (err: Error) => {
      session.destroy();
      reject(err);
    };
    session.on("error", fail);
    const stream = session.request({
      ":method": req.method ?? "GET",
      ":path": target.pathname + target.search,
      ...req.headers,
    });
    stream.setTimeout(req.timeoutMs, () => fail(timedOut()));
    let status = 0;
    let headers: Record<string, string> = {};
    stream.on("response", (h) => {
      status = Number(h[":status"] ?? 0);
      headers = joinedHeaders(h);
    });
    buffer(stream).then((body) => {
      session.close();
      resolve({ status, headers, body });
    }, fail);
    stream.end(req.body);
  });
}

/** A response's headers, repeated ones joined with ", ", HTTP/2's pseudo-headers (`:status`) left out. */
function joinedHeaders(
  headers: Record<string, string | string[] | number | undefined>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!name.startsWith(":") && value !== undefined)
      out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}

/** Whether a transport error is about the certificate or the handshake (no use retrying). */
export function isTlsError(code: string): boolean {
  return /CERT|SELF_SIGNED|UNABLE_TO_|HOSTNAME|ALTNAME|DEPTH_ZERO|SSL|TLS|wrong version/i.test(code);
}

/** A failed request's reason: fetch's own error says "fetch failed", so its cause's code or message first. */
export function fetchErrorReason(err: unknown): string {
  const e = err as { code?: string; cause?: { code?: string; message?: string }; message: string };
  return e.cause?.code ?? e.cause?.message ?? e.code ?? e.message;
}
