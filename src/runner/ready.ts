import { grpcAnswerProblem } from "../engines/grpc-health.js";
import type { Protocol } from "../results/schema.js";
import type { RunningProcess } from "./runtime.js";

/**
 * Requests `url` until it answers 2xx (for a gRPC target, `url` is its base URL and the standard
 * health check must get an answer over HTTP/2, OK or not: the probe judges it). Resolves with undefined when ready, or with why not (timeout
 * with the last answer seen, or the process exiting).
 */
export async function waitReady(
  url: string,
  timeoutS: number,
  proc?: RunningProcess,
  signal?: AbortSignal,
  protocol: Protocol = "http1",
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutS * 1000;
  const ask = protocol === "grpc" ? grpcAnswerProblem : httpProblem;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (signal?.aborted) return "interrupted";
    if (proc && !proc.alive()) {
      const { code, signal: sig } = await proc.exited;
      return `exited before it was ready (${sig ? `signal ${sig}` : `exit code ${code}`})`;
    }
    const problem = await ask(url);
    if (problem === undefined) return undefined;
    last = problem;
    await new Promise((r) => setTimeout(r, 100));
  }
  const what = protocol === "grpc" ? `gRPC health check of ${url}` : `GET ${url}`;
  return `not ready within ${timeoutS} s (${what}: ${last})`;
}

/** Undefined when `url` answers 2xx, else what it answered. */
async function httpProblem(url: string): Promise<string | undefined> {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(2000), headers: { connection: "close" } });
    await res.arrayBuffer();
    if (res.status >= 200 && res.status < 300) return undefined;
    return `HTTP ${res.status}`;
  } catch (err) {
    return describeFetchError(err);
  }
}

function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
