import type { RunningProcess } from "./runtime.js";

/**
 * Requests `url` until it answers 2xx. Resolves with undefined when ready, or with why not
 * (timeout with the last answer seen, or the process exiting).
 */
export async function waitReady(
  url: string,
  timeoutS: number,
  proc?: RunningProcess,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const deadline = Date.now() + timeoutS * 1000;
  let last = "no answer";
  while (Date.now() < deadline) {
    if (signal?.aborted) return "interrupted";
    if (proc && !proc.alive()) {
      const { code, signal: sig } = await proc.exited;
      return `exited before it was ready (${sig ? `signal ${sig}` : `exit code ${code}`})`;
    }
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000), headers: { connection: "close" } });
      await res.arrayBuffer();
      if (res.status >= 200 && res.status < 300) return undefined;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = describeFetchError(err);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return `not ready within ${timeoutS} s (GET ${url}: ${last})`;
}

function describeFetchError(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (err as Error).message;
}
