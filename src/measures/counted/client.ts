import http from "node:http";
import { responseProblems } from "../../engines/probe.js";
import { expandRequests, type ExpandedRequest } from "../../engines/requests.js";
import type { ScenarioManifest } from "../../manifests/schema.js";
import type { CountedRepetition } from "./schema.js";

/**
 * The client of `proxybench count`: a fixed sequence of the scenario's requests over
 * a fixed number of keep-alive connections, one request at a time (the next starts when the
 * previous response has been read), taking the connections in turn. One at a time keeps what
 * the proxy does per request the same from run to run. Every response is checked as the probe
 * checks it.
 */

const REQUEST_TIMEOUT_MS = 30_000;

/** What a sequence sent: requests, failures (the check's and transport errors), status codes, why. */
type SequenceResult = Pick<CountedRepetition, "requests" | "failures" | "statusCodes" | "reasons">;

export class KeepAliveClient {
  private readonly agents: http.Agent[];
  private readonly sequence: ExpandedRequest[];
  private next = 0;

  constructor(
    private readonly baseUrl: URL,
    private readonly scenario: ScenarioManifest,
    /** A positive integer (run.ts checks it before anything starts). */
    connections: number,
  ) {
    this.agents = Array.from(
      { length: connections },
      () => new http.Agent({ keepAlive: true, maxSockets: 1 }),
    );
    this.sequence = expandRequests(scenario);
  }

  /** Sends `count` requests, continuing the scenario's sequence where the last call stopped. */
  async send(count: number): Promise<SequenceResult> {
    const result: SequenceResult = { requests: 0, failures: 0, statusCodes: {}, reasons: [] };
    const reasons = new Set<string>();
    for (let i = 0; i < count; i++) {
      const index = this.next++;
      const request = this.sequence[index % this.sequence.length] as ExpandedRequest;
      const agent = this.agents[index % this.agents.length] as http.Agent;
      const problems = await this.one(agent, request, result.statusCodes);
      result.requests++;
      if (problems.length > 0) result.failures++;
      for (const p of problems) if (reasons.size < 20) reasons.add(`${request.method} ${request.path}: ${p}`);
    }
    result.reasons = [...reasons];
    return result;
  }

  private async one(agent: http.Agent, r: ExpandedRequest, codes: Record<string, number>): Promise<string[]> {
    try {
      const res = await exchange(this.baseUrl, agent, r);
      codes[res.status] = (codes[res.status] ?? 0) + 1;
      return responseProblems(this.scenario, r.method, res);
    } catch (err) {
      codes["0"] = (codes["0"] ?? 0) + 1;
      return [`no response (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`];
    }
  }

  close(): void {
    for (const a of this.agents) a.destroy();
  }
}

function exchange(
  base: URL,
  agent: http.Agent,
  r: ExpandedRequest,
): Promise<{ status: number; contentType: string; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: base.hostname, port: base.port, path: r.path, method: r.method, headers: r.headers, agent },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            contentType: String(res.headers["content-type"] ?? ""),
            body: Buffer.concat(chunks),
          }),
        );
        res.on("error", reject);
      },
    );
    req.setTimeout(REQUEST_TIMEOUT_MS, () =>
      req.destroy(new Error(`timed out after ${REQUEST_TIMEOUT_MS} ms`)),
    );
    req.on("error", reject);
    req.end(r.body);
  });
}
