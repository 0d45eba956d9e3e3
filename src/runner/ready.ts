import { grpcAnswerProblem } from "../engines/grpc-health.js";
import { isGrpc } from "../results/protocols.js";
import { fetchErrorReason, fetchOverH2c, fetchOverTls, isTlsError } from "../engines/fetch.js";
import type { Protocol } from "../results/schema.js";
import type { RunningProcess } from "./runtime.js";

/**
 * Requests `url` until it answers 2xx (for a gRPC target, `url` is its base URL and the standard
 * health check must get an answer over HTTP/2, OK or not: the probe judges it). Resolves with undefined when ready, or with why not (timeout
 * with the last answer seen, the process exiting, or at once a certificate the run's CA `ca`
 * does not vouch for).
 */
export async function waitReady(
  url: string,
  timeoutS: number,
  proc?: RunningProcess,
  signal?: AbortSignal,
  protocol: Protocol = "http1",
  ca?: string,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutS * 1000;
  const ask = isGrpc(protocol)
    ? (u: string) => grpcAnswerProblem(u, ca)
    : (u: string) => httpProblem(u, ca, protocol === "h2c");
  const what = isGrpc(protocol) ? `gRPC health check of ${url}` : `GET ${url}`;
  let last = "no answer";
  // A proxy started anew each round is up within milliseconds: ask again soon, then less often.
  for (let pauseMs = 10; Date.now() < deadline; pauseMs = Math.min(100, pauseMs * 2)) {
    if (signal?.aborted) return "interrupted";
    if (proc && !proc.alive()) {
      const { code, signal: sig } = await proc.exited;
      return `exited before it was ready (${sig ? `signal ${sig}` : `exit code ${code}`})`;
    }
    const problem = await ask(url);
    if (problem === undefined) return undefined;
    if (ca !== undefined && isTlsError(problem)) return `TLS handshake failed (${what}: ${problem})`;
    last = problem;
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  return `not ready within ${timeoutS} s (${what}: ${last})`;
}

/** Undefined when `url` answers 2xx, else what it answered. */
async function httpProblem(url: string, ca?: string, h2c = false): Promise<string | undefined> {
  try {
    const status = h2c
      ? (await fetchOverH2c(url, { timeoutMs: 2000 })).status
      : ca === undefined
        ? await fetch(url, { signal: AbortSignal.timeout(2000), headers: { connection: "close" } }).then(
            async (res) => (await res.arrayBuffer(), res.status),
          )
        : (await fetchOverTls(url, { timeoutMs: 2000, headers: { connection: "close" } }, ca)).status;
    if (status >= 200 && status < 300) return undefined;
    return `HTTP ${status}`;
  } catch (err) {
    return fetchErrorReason(err);
  }
}
