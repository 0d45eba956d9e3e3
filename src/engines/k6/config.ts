import path from "node:path";
import { expandRequests } from "../requests.js";
import type { EngineInvocation } from "../types.js";
import { arrivalVus, concurrency, requireRate } from "../load.js";
import { UserError } from "../../util/errors.js";

/** The k6 load model, as scenarios/lib/proxybench.js turns it into `options.scenarios`. */
export type K6Load =
  | { model: "constant-vus"; vus: number }
  | { model: "constant-arrival-rate"; rate: number; preAllocatedVUs: number; maxVUs: number }
  | { model: "fixed-count"; vus: number; iterations: number };

export function k6Load(inv: Pick<EngineInvocation, "load" | "scenario">): K6Load {
  const { load } = inv;
  switch (load.model) {
    case "constant-vus":
    case "max-throughput":
      return { model: "constant-vus", vus: concurrency(load) };
    case "constant-arrival-rate": {
      const vus = arrivalVus(load);
      return { model: "constant-arrival-rate", rate: requireRate(load), preAllocatedVUs: vus, maxVUs: vus };
    }
    case "fixed-count": {
      if (load.requests === undefined) {
        throw new UserError(`load '${load.label}': model fixed-count needs 'requests'`);
      }
      const perIteration = expandRequests(inv.scenario).length;
      return {
        model: "fixed-count",
        vus: concurrency(load),
        iterations: Math.max(1, Math.ceil(load.requests / perIteration)),
      };
    }
  }
}

/** k6 scenarios last at least one second. */
export function k6DurationS(durationS: number): number {
  return Math.max(1, durationS);
}

/** Pure: the configuration the shared k6 library reads from PROXYBENCH_CONFIG (JSON). */
export function buildK6Config(inv: EngineInvocation, summaryFile: string, failFast = true) {
  return {
    baseUrl: inv.baseUrl.replace(/\/+$/, ""),
    /** http1: scenarios/lib/proxybench.js; grpc: scenarios/lib/proxybench-grpc.js. */
    protocol: inv.scenario.protocol,
    /** gRPC: the absolute path of the scenario's descriptor set (absent: server reflection). */
    ...(inv.scenario.protoset === undefined
      ? {}
      : { protoset: path.resolve(inv.scenarioDir, inv.scenario.protoset) }),
    scenario: inv.scenario.name,
    requests: expandRequests(inv.scenario),
    check: inv.scenario.check,
    load: k6Load(inv),
    durationS: k6DurationS(inv.durationS),
    /** Absolute path of the handleSummary JSON. */
    summaryFile,
    /** setup() aborts the run (exit 108) when the target does not answer at all. */
    failFast,
  };
}

/** What the k6 script receives in PROXYBENCH_CONFIG (JSON). */
type K6Config = ReturnType<typeof buildK6Config>;

/**
 * Pure: the k6 command line. No REST API server (parallel runs would fight over port 6565), no
 * usage report, no colours; the summary is written by the script's handleSummary.
 */
export function buildK6Args(scriptPath: string): string[] {
  return ["run", "--quiet", "--no-color", "--no-usage-report", "--address", "", scriptPath];
}

/**
 * k6's Go garbage collector target (GOGC) for the engine's runs. At 400 instead of Go's default
 * 100 the collector runs a quarter as often (k6 holds up to five times its live heap, tens of MB
 * at 64 VUs), and one core sends 15-20% more requests (`npm run bench`, docs/engines.md).
 * GOMEMLIMIT keeps a large VU count from growing the heap past a quarter of the machine's
 * memory: the collector works harder instead.
 */
export const K6_GOGC = "400";

/** The Go runtime's memory settings for k6: the user's own GOGC and GOMEMLIMIT win. */
export function k6GoRuntimeEnv(
  totalMemoryBytes: number,
  inherited: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  return {
    GOGC: inherited.GOGC ?? K6_GOGC,
    GOMEMLIMIT: inherited.GOMEMLIMIT ?? `${Math.max(64, Math.floor(totalMemoryBytes / 4 / 2 ** 20))}MiB`,
  };
}

/**
 * Pure: the environment of the k6 process. Over TLS, Go's crypto/x509 reads the trusted roots
 * from SSL_CERT_FILE: k6 trusts the run's CA and nothing else, and verifies every certificate.
 */
export function buildK6Env(
  config: K6Config,
  caFile?: string,
  goRuntime: Record<string, string> = {},
): Record<string, string> {
  return {
    ...goRuntime,
    ...(caFile === undefined ? {} : { SSL_CERT_FILE: caFile, SSL_CERT_DIR: "" }),
    PROXYBENCH_CONFIG: JSON.stringify(config),
    K6_NO_USAGE_REPORT: "true",
    // Nothing leaves the machine: no cloud, no remote outputs inherited from the environment.
    K6_CLOUD_TOKEN: "",
    K6_OUT: "",
    K6_NO_COLOR: "true",
  };
}
