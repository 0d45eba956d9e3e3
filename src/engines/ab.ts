import { readFile, writeFile } from "node:fs/promises";
import type { ScenarioManifest } from "../manifests/schema.js";
import type { Load } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { refuseForeignLoad, wholeSeconds } from "./load.js";
import { emptyMeasurement, latencyMsOf } from "./measurement.js";
import { findExecutable } from "../util/paths.js";
import { runCommand } from "../util/processes.js";
import { freshRunFiles, runEngineProcess } from "./process.js";
import { pickDefined } from "../util/objects.js";
import { requestsPerIteration, type ExpandedRequest } from "./requests.js";
import type { EngineAdapter, EngineInvocation, EngineMeasurement } from "./types.js";

/**
 * ApacheBench (`ab`, Debian package apache2-utils): the tool of the Ocelot study. It sends one
 * URL over `-c` connections, either a fixed count (`-n`) or for a time (`-t`), without
 * keep-alive unless the load says `keepAlive: true`. Its text output gives req/s, time per
 * request, failed requests and non-2xx responses; `-e` gives the percentile ladder 0..100.
 *
 * What ab cannot tell: which status codes the non-2xx responses had (they are counted under
 * "non-2xx"; the runner's probe names the codes), and the latency of successful responses
 * alone (its percentiles cover every response; a cell with any bad response is invalid anyway).
 */

/**
 * Requests allowed per second of a timed run: `-t` alone would stop at 50000 requests, and ab
 * allocates 32 bytes per allowed request up front, so the cap is sized from the duration
 * (250k req/s is beyond what ab reaches on one core) and bounded at 20M (640 MB).
 */
const AB_TIMED_REQUESTS_PER_S = 250_000;
const AB_TIMED_REQUESTS_MAX = 20_000_000;

export type AbTarget = Omit<ExpandedRequest, "name">;

/** The single request ab sends for a scenario; ab has no notion of a sequence of requests. */
export function abTarget(scenario: ScenarioManifest): AbTarget {
  const first = scenario.requests[0];
  const count = requestsPerIteration(scenario);
  if (!first || count !== 1) {
    throw new UserError(
      `scenario '${scenario.name}': the ab engine sends a single URL, but the scenario has ${count} requests ` +
        `per iteration; use the k6 engine (--engine k6) for it`,
    );
  }
  let p = first.path;
  for (const [name, values] of Object.entries(first.vars)) p = p.replaceAll(`{${name}}`, values[0] ?? "");
  return { method: first.method, path: p, headers: first.headers, body: first.body };
}

/**
 * ab's command line (pure). `-r` keeps ab going on socket errors so they are counted rather
 * than ending the run; `-q` drops the progress lines; a `fixed-count` load sends
 * `load.requests`, any other load runs for `durationS` (`-t` first, then `-n`, which `-t`
 * would otherwise reset to 50000).
 */
export function buildAbArgs(input: {
  load: Load;
  durationS: number;
  url: string;
  target: AbTarget;
  csvFile: string;
  /** File holding the request body (ab -p), when the target has one. */
  bodyFile?: string;
}): string[] {
  const { load, target } = input;
  refuseForeignLoad("ab", load, "closed-model loads only", "k6");
  const concurrency = load.connections ?? load.vus ?? 1;
  const args = ["-q", "-r", "-c", String(concurrency)];
  if (load.model === "fixed-count") {
    if (load.requests === undefined)
      throw new UserError(`load '${load.label}': fixed-count needs 'requests'`);
    if (load.requests < concurrency) {
      throw new UserError(
        `load '${load.label}': ab needs at least as many requests (${load.requests}) as connections (${concurrency})`,
      );
    }
    args.push("-n", String(load.requests));
  } else {
    const seconds = wholeSeconds(input.durationS);
    const cap = Math.min(
      AB_TIMED_REQUESTS_MAX,
      Math.max(50_000, Math.ceil(seconds * AB_TIMED_REQUESTS_PER_S)),
    );
    args.push("-t", String(seconds), "-n", String(cap));
  }
  if (load.keepAlive === true) args.push("-k");
  if (target.method === "HEAD") args.push("-i");
  else if (target.method !== "GET") args.push("-m", target.method);
  for (const [name, value] of Object.entries(target.headers)) {
    if (name.toLowerCase() === "content-type") continue;
    args.push("-H", `${name}: ${value}`);
  }
  if (input.bodyFile !== undefined) {
    const type = Object.entries(target.headers).find(([n]) => n.toLowerCase() === "content-type")?.[1];
    args.push("-p", input.bodyFile, "-T", type ?? "application/octet-stream");
  }
  args.push("-e", input.csvFile, input.url);
  return args;
}

function num(text: string, label: string): number | undefined {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`^${escaped}:\\s+([0-9.]+)`, "m").exec(text);
  return m?.[1] === undefined ? undefined : Number(m[1]);
}

/**
 * Parses ab's text report (pure): everything it says about a run. Returns undefined when there
 * is none (ab stopped before the summary, e.g. on a refused connection without -r).
 */
export function parseAbOutput(text: string) {
  const complete = num(text, "Complete requests");
  const timeTakenS = /^Time taken for tests:\s+([0-9.]+) seconds/m.exec(text)?.[1];
  if (complete === undefined || timeTakenS === undefined) return undefined;
  const breakdown = /\(Connect: (\d+), Receive: (\d+), Length: (\d+), Exceptions: (\d+)\)/.exec(text);
  const perRequest = [...text.matchAll(/^Time per request:\s+([0-9.]+) \[ms\] \(mean(, across[^)]*)?\)/gm)];
  const total = /^Total:\s+(\d+)\s+(\d+)\s+[0-9.]+\s+(\d+)\s+(\d+)/m.exec(text);
  const ladder = [...text.matchAll(/^\s*(\d+)%\s+(\d+)/gm)].map((m) => [m[1]!, Number(m[2])] as const);
  const server = /^Server Software:[ \t]*(.*)$/m.exec(text)?.[1]?.trim();
  return {
    serverSoftware: server ? server : undefined,
    documentPath: /^Document Path:\s+(\S+)/m.exec(text)?.[1],
    documentLength: num(text, "Document Length"),
    concurrency: num(text, "Concurrency Level") ?? 0,
    timeTakenS: Number(timeTakenS),
    complete,
    failed: num(text, "Failed requests") ?? 0,
    failedBreakdown: {
      connect: Number(breakdown?.[1] ?? 0),
      receive: Number(breakdown?.[2] ?? 0),
      length: Number(breakdown?.[3] ?? 0),
      exceptions: Number(breakdown?.[4] ?? 0),
    },
    writeErrors: num(text, "Write errors") ?? 0,
    keepAliveRequests: num(text, "Keep-Alive requests") ?? 0,
    non2xx: num(text, "Non-2xx responses") ?? 0,
    totalTransferred: num(text, "Total transferred") ?? 0,
    htmlTransferred: num(text, "HTML transferred") ?? 0,
    rps: num(text, "Requests per second") ?? 0,
    /** "Time per request (mean)": concurrency x time / requests, the mean latency of a closed loop. */
    timePerRequestMs: Number(perRequest.find((m) => m[2] === undefined)?.[1] ?? 0),
    /** "Time per request (mean, across all concurrent requests)": time / requests. */
    timePerRequestAcrossMs: Number(perRequest.find((m) => m[2] !== undefined)?.[1] ?? 0),
    transferRateKBps: num(text, "Transfer rate"),
    /** "Total" row of Connection Times (whole ms), when present. */
    totalMs: total
      ? { min: Number(total[1]), mean: Number(total[2]), median: Number(total[3]), max: Number(total[4]) }
      : undefined,
    /** The text ladder (whole ms), keyed by percent: 50, 66, 75, 80, 90, 95, 98, 99, 100. */
    ladderMs: Object.fromEntries(ladder),
  };
}

/** Parses ab's `-e` CSV ("Percentage served,Time in ms" then 0..100): percent -> ms (pure). */
export function parseAbCsv(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of text.split(/\r?\n/)) {
    const m = /^(\d+),([0-9.]+)$/.exec(line.trim());
    if (m?.[1] !== undefined && m[2] !== undefined) out[m[1]] = Number(m[2]);
  }
  return out;
}

/** The percentiles of ab's text ladder, the ones the Ocelot study published. */
const AB_LADDER = ["50", "66", "75", "80", "90", "95", "98", "99", "100"] as const;

/**
 * ab's figures normalised into a measurement (pure). Transport errors are the connect, receive
 * and exception failures plus write errors (capped at the requests completed: ab counts one
 * request under several of them); "Length" failures, responses whose size differs from the
 * first one's, are check failures. Successful = complete - errors - non-2xx - length failures.
 */
export function normaliseAb(
  text: string,
  csv: string | undefined,
  exitCode: number | null,
  raw: string[],
): EngineMeasurement {
  const report = parseAbOutput(text);
  if (!report) {
    const last = text.trim().split("\n").pop()?.trim() ?? "";
    return {
      ...emptyMeasurement(0),
      raw,
      exitCode,
      engineErrors: [`ab exited with code ${String(exitCode)} before its summary${last ? `: ${last}` : ""}`],
    };
  }
  const f = report.failedBreakdown;
  const errors = Math.min(report.complete, f.connect + f.receive + f.exceptions + report.writeErrors);
  const non2xx = Math.min(report.complete - errors, report.non2xx);
  const checkFailures = Math.min(report.complete - errors - non2xx, f.length);
  const ok = report.complete - errors - non2xx - checkFailures;
  const statusCodes: Record<string, number> = {};
  if (ok + checkFailures > 0) statusCodes["2xx"] = ok + checkFailures;
  if (non2xx > 0) statusCodes["non-2xx"] = non2xx;
  if (errors > 0) statusCodes["0"] = errors;

  const ladder = csv ? parseAbCsv(csv) : {};
  const fromCsv = Object.keys(ladder).length > 0;
  const at = (p: string): number => (fromCsv ? ladder[p] : report.ladderMs[p]) ?? 0;
  const engineErrors: string[] = [];
  if (exitCode !== 0) engineErrors.push(`ab exited with code ${String(exitCode)}`);
  if (report.complete === 0) engineErrors.push("ab completed no request");
  return {
    durationS: report.timeTakenS,
    rps: report.timeTakenS > 0 ? ok / report.timeTakenS : 0,
    requests: report.complete,
    errors,
    non2xx,
    checkFailures,
    statusCodes,
    droppedIterations: 0,
    bytesReceived: report.totalTransferred,
    latencyMs: latencyMsOf(
      fromCsv ? at("0") : (report.totalMs?.min ?? 0),
      report.timePerRequestMs,
      at("100"),
      at,
    ),
    latencyPercentilesMs: Object.fromEntries(AB_LADDER.map((p) => [p, at(p)])),
    raw,
    exitCode,
    engineErrors,
  };
}

/** Seconds ab may take beyond its load (a fixed count: in all) before it is stopped. */
const AB_SLACK_S = 300;

const INSTALL_HINT = "ab (ApacheBench) not found: install it with `sudo apt-get install apache2-utils`";

export const abEngine: EngineAdapter = {
  name: "ab",

  async locate() {
    const found = await findExecutable("ab");
    if (!found) throw new UserError(INSTALL_HINT, 1);
    const { output } = await runCommand(found, ["-V"], { timeoutMs: 5000 });
    const version = /Version ([0-9][^\s<]*)/.exec(output)?.[1] ?? "unknown";
    return { path: found, version };
  },

  async run(inv: EngineInvocation): Promise<EngineMeasurement> {
    const { path: abPath } = await this.locate();
    const target = abTarget(inv.scenario);
    const { names, file } = await freshRunFiles(inv, { text: "ab.txt", csv: "ab.csv", body: "ab-body" });
    if (target.body !== undefined) await writeFile(file("body"), target.body);
    const args = buildAbArgs({
      load: inv.load,
      durationS: inv.durationS,
      url: inv.baseUrl.replace(/\/+$/, "") + target.path,
      target,
      csvFile: file("csv"),
      ...(target.body === undefined ? {} : { bodyFile: file("body") }),
    });
    const result = await runEngineProcess("ab", inv, {
      command: abPath,
      args,
      env: {},
      logFile: file("text"),
      // A fixed count has no duration of its own: allow it the slack a hung run must not exceed.
      limitS: (inv.load.model === "fixed-count" ? 0 : inv.durationS) + AB_SLACK_S,
    });
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the log stream flush
    const text = await readFile(file("text"), "utf8").catch(() => "");
    const csv = await readFile(file("csv"), "utf8").catch(() => undefined);
    const raw = csv === undefined ? [names.text] : [names.text, names.csv];
    const measured = normaliseAb(text, csv, result.exitCode, raw);
    const measurement = { ...measured, ...pickDefined(result, ["loadgenCpu", "loadgenCoresBusy"]) };
    if (result.aborted) measurement.engineErrors.unshift("the run was interrupted");
    if (result.timedOut)
      measurement.engineErrors.unshift(
        `ab did not finish within ${AB_SLACK_S} s of its load and was stopped`,
      );
    return measurement;
  },
};
