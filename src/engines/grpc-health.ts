import http2 from "node:http2";
import { GRPC_STATUS_NAMES } from "./k6/summary.js";
import { PROBE_ATTEMPTS } from "./probe.js";
import type { ProbeResult } from "./types.js";

/**
 * The standard gRPC health check (grpc.health.v1.Health/Check) sent over h2c with Node's HTTP/2
 * client: how the runner knows that a gRPC target is up, and the probe of a gRPC cell (the whole
 * path through the proxy answers with status OK). The messages of the scenario's own calls are
 * checked by the gRPC k6 library during the load.
 */

export const HEALTH_METHOD = "/grpc.health.v1.Health/Check";
const CALL_TIMEOUT_MS = 5000;

/** What one unary call ended with: the gRPC status (and message), or why there was no answer. */
export type GrpcAnswer = { grpcStatus: number; grpcMessage?: string } | { error: string };

/**
 * The gRPC status of an answer whose HTTP status is not 200 (a proxy's own error page), as gRPC
 * clients map it (gRPC's "HTTP to gRPC Status Code Mapping"). Pure.
 */
export function grpcStatusOfHttp(status: number): number {
  if (status === 400) return 13; // INTERNAL
  if (status === 401) return 16; // UNAUTHENTICATED
  if (status === 403) return 7; // PERMISSION_DENIED
  if (status === 404) return 12; // UNIMPLEMENTED
  if (status === 429 || status === 502 || status === 503 || status === 504) return 14; // UNAVAILABLE
  return 2; // UNKNOWN
}

/** `UNAVAILABLE (14): message` or the transport error. Pure. */
export function describeGrpcAnswer(answer: GrpcAnswer): string {
  if ("error" in answer) return `no answer (${answer.error})`;
  const name = GRPC_STATUS_NAMES[answer.grpcStatus] ?? "UNKNOWN STATUS";
  return `${name} (${answer.grpcStatus})${answer.grpcMessage ? `: ${answer.grpcMessage}` : ""}`;
}

/**
 * One unary call with an empty request message (a health check request for every service) to
 * `baseUrl` (http://host:port, HTTP/2 with prior knowledge; https://host:port over TLS trusting `ca`). The status is read from the
 * trailers, or from the headers of a trailers-only answer.
 */
export function emptyGrpcCall(baseUrl: string, method: string, ca?: string): Promise<GrpcAnswer> {
  return new Promise((resolve) => {
    const session = http2.connect(baseUrl, ca === undefined ? {} : { ca });
    // the first answer is the call's: a later finish clears, destroys and resolves nothing more
    const finish = (answer: GrpcAnswer) => {
      clearTimeout(timer);
      session.destroy();
      resolve(answer);
    };
    const timer = setTimeout(
      () => finish({ error: `no answer within ${CALL_TIMEOUT_MS} ms` }),
      CALL_TIMEOUT_MS,
    );
    session.on("error", (err: NodeJS.ErrnoException) => finish({ error: errorCode(err) }));
    const req = session.request({
      ":method": "POST",
      ":path": method,
      "content-type": "application/grpc",
      te: "trailers",
    });
    let status: { grpcStatus: number; grpcMessage?: string } | undefined;
    const read = (headers: http2.IncomingHttpHeaders) => {
      const code = headers["grpc-status"];
      if (code === undefined) return;
      const message = headers["grpc-message"];
      status = {
        grpcStatus: Number(code),
        ...(typeof message === "string" && message !== "" ? { grpcMessage: percentDecoded(message) } : {}),
      };
    };
    req.on("response", (headers) => {
      const http = headers[":status"] ?? 0;
      if (http !== 200) finish({ grpcStatus: grpcStatusOfHttp(http), grpcMessage: `HTTP status ${http}` });
      read(headers);
    });
    req.on("trailers", read);
    req.on("data", () => {});
    req.on("end", () => finish(status ?? { error: "the answer had no grpc-status" }));
    req.on("error", (err: NodeJS.ErrnoException) => finish({ error: errorCode(err) }));
    // One length-prefixed message: not compressed, zero bytes long.
    req.end(Buffer.alloc(5));
  });
}

/** The code of a transport error; a stream cancelled by its session's failure gives that failure's. */
function errorCode(err: NodeJS.ErrnoException): string {
  const cause = err.cause as NodeJS.ErrnoException | undefined;
  return cause?.code ?? err.code ?? err.message;
}

/** grpc-message is percent-encoded; a malformed one is shown as sent. */
function percentDecoded(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/**
 * Undefined when the target answers the health check over HTTP/2 at all (up: whether the
 * answer is OK is the probe's question), else why there was no answer.
 */
export async function grpcAnswerProblem(baseUrl: string, ca?: string): Promise<string | undefined> {
  const answer = await emptyGrpcCall(baseUrl, HEALTH_METHOD, ca);
  return "error" in answer ? describeGrpcAnswer(answer) : undefined;
}

/** The probe of a gRPC cell: the health check through the proxy, a few times, each answer OK. */
export async function probeGrpc(baseUrl: string, ca?: string): Promise<ProbeResult> {
  const statusCodes: Record<string, number> = {};
  const reasons = new Set<string>();
  for (let i = 0; i < PROBE_ATTEMPTS; i++) {
    const answer = await emptyGrpcCall(baseUrl, HEALTH_METHOD, ca);
    const key = "error" in answer ? "0" : (GRPC_STATUS_NAMES[answer.grpcStatus] ?? String(answer.grpcStatus));
    statusCodes[key] = (statusCodes[key] ?? 0) + 1;
    if (key !== "OK") reasons.add(`gRPC health check ${HEALTH_METHOD}: ${describeGrpcAnswer(answer)}`);
  }
  return { ok: reasons.size === 0, reasons: [...reasons], statusCodes };
}
