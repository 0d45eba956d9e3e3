import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { z } from "zod";
import type { ScenarioManifest } from "../../manifests/schema.js";
import { checkedBySchema } from "../../util/errors.js";
import { parseJsonOrRefuse } from "../../util/files.js";
import { responseProblems, type ProbeResponse } from "../probe.js";
import { lowerCaseHeaders, type ResponseHeaders } from "../response-effects.js";
import { latencyOf, statusTotals } from "../measurement.js";
import type { EngineFigures } from "../types.js";

/** One response as `vegeta encode -to=json` writes it (latency in nanoseconds, body base64). */
export const VegetaResult = z.object({
  code: z.number().int().nonnegative(),
  timestamp: z.string().min(1),
  latency: z.number().nonnegative(),
  bytes_in: z.number().nonnegative().default(0),
  error: z.string().default(""),
  body: z.string().nullable().default(null),
  method: z.string().default("GET"),
  headers: z.record(z.string(), z.array(z.string())).nullable().default(null),
});
export type VegetaResult = z.infer<typeof VegetaResult>;

/** What is wrong with one 2xx response, as the scenario's check sees it (empty: correct). */
type ResponseCheck = (
  response: Pick<ProbeResponse, "status" | "body"> & { method: string; headers: ResponseHeaders },
) => string[];

/** The scenario's check (status, content type, body, headers, what the upstream saw), as the probe applies it. */
export function scenarioCheck(scenario: ScenarioManifest): ResponseCheck {
  return (r) => {
    const headers = lowerCaseHeaders(r.headers);
    const contentType = headers["content-type"]?.[0] ?? "";
    return responseProblems(scenario, r.method, { status: r.status, contentType, body: r.body, headers });
  };
}

/** Distinct check problems kept as examples. */
const MAX_PROBLEM_EXAMPLES = 5;

/** Tallies vegeta's responses one by one (bounded memory but for one latency per success). */
export class VegetaTally {
  private checkFailures = 0;
  private bytes = 0;
  private readonly statusCodes: Record<string, number> = {};
  private readonly latenciesMs: number[] = [];
  private readonly problems = new Set<string>();
  private startMs = Number.POSITIVE_INFINITY;
  private endMs = Number.NEGATIVE_INFINITY;

  constructor(private readonly check: ResponseCheck) {}

  add(r: VegetaResult): void {
    this.bytes += r.bytes_in;
    const start = Date.parse(r.timestamp);
    const latencyMs = r.latency / 1e6;
    if (Number.isFinite(start)) {
      this.startMs = Math.min(this.startMs, start);
      this.endMs = Math.max(this.endMs, start + latencyMs);
    }
    const key = String(r.code); // "0": a transport error
    this.statusCodes[key] = (this.statusCodes[key] ?? 0) + 1;
    if (r.code < 200 || r.code > 299) return;
    const body = Buffer.from(r.body ?? "", "base64");
    const found = this.check({ status: r.code, method: r.method, headers: r.headers ?? {}, body });
    if (found.length > 0) {
      this.checkFailures++;
      for (const p of found) if (this.problems.size < MAX_PROBLEM_EXAMPLES) this.problems.add(p);
      return;
    }
    this.latenciesMs.push(latencyMs);
  }

  /** Distinct problems of the responses that failed the check (a few examples). */
  checkProblems(): string[] {
    return [...this.problems];
  }

  /** The figures so far; `plannedRequests` is what the pacer was asked to send. */
  figures(plannedRequests: number): EngineFigures {
    const totals = statusTotals(this.statusCodes);
    const durationS = totals.requests > 0 ? Math.max(0, this.endMs - this.startMs) / 1000 : 0;
    return {
      durationS,
      rps: durationS > 0 ? this.latenciesMs.length / durationS : 0,
      ...totals,
      checkFailures: this.checkFailures,
      statusCodes: { ...this.statusCodes },
      droppedIterations: Math.max(0, plannedRequests - totals.requests),
      bytesReceived: this.bytes,
      ...latencyOf(this.latenciesMs),
    };
  }
}

/** Reads `vegeta encode -to=json` output line by line into a tally; a malformed line names the file and line. */
export async function tallyVegetaResults(file: string, tally: VegetaTally): Promise<void> {
  const lines = createInterface({ input: createReadStream(file, "utf8"), crlfDelay: Infinity });
  let n = 0;
  for await (const line of lines) {
    n++;
    if (line.trim() === "") continue;
    const json = parseJsonOrRefuse(line, (why) => `${file}:${n}: not JSON (${why})`);
    tally.add(checkedBySchema(VegetaResult, json, `${file}:${n}`));
  }
}
