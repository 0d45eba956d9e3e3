import { classifyRepetition } from "../../../../src/engines/classify.js";
import { emptyMeasurement } from "../../../../src/engines/measurement.js";
import type { EngineMeasurement } from "../../../../src/engines/types.js";
import type { ActiveCell } from "../../../../src/runner/context.js";
import type { BlockContext } from "../../../../src/measures/wall-clock/context.js";
import type { NoiseSnapshot } from "../../../../src/measures/wall-clock/noise.js";
import type { Block, PlannedCell } from "../../../../src/runner/plan.js";
import { Progress } from "../../../../src/measures/wall-clock/progress.js";
import type { RunningProcess } from "../../../../src/runner/runtime.js";

/** A k6 run of `durationS` that served `requests` requests, every one a 200. */
export function okMeasurement(durationS: number, requests: number): EngineMeasurement {
  return {
    ...emptyMeasurement(durationS),
    rps: requests / durationS,
    requests,
    statusCodes: { "200": requests },
    latencyMs: { min: 1, mean: 2, p50: 2, p90: 3, p95: 3, p99: 4, max: 5 },
    raw: [],
    exitCode: 0,
    engineErrors: [],
  };
}

/**
 * One nginx cell of a k6 block and the block context measureRepetition takes, the runner's
 * injected parts replaced: the engine returns `engineRun()` each attempt; under `native` the
 * noise sampler `noiseSnapshot`, under `docker` none (no noise is sampled there). `lines`: what
 * progress printed.
 */
export function repetitionContext(options: {
  proc: RunningProcess;
  engineRun: () => EngineMeasurement;
  retries: number;
  durationS: number;
  runtime: "native" | "docker";
  noiseSnapshot?: () => Promise<NoiseSnapshot | undefined>;
}): { a: ActiveCell; block: Block; ctx: BlockContext; lines: string[] } {
  const lines: string[] = [];
  const planned = {
    id: "light-default/nginx",
    engine: "k6",
    proxy: { manifest: { name: "nginx" } },
    scenario: { manifest: { name: "light", protocol: "http1" }, dir: "/x" },
    load: { label: "default", model: "constant-vus", vus: 1 },
  } as unknown as PlannedCell;
  const a: ActiveCell = {
    planned,
    cell: { id: planned.id } as ActiveCell["cell"],
    baseUrl: "http://127.0.0.1:1",
    proc: options.proc,
    problems: [],
    stopped: false,
    servedByProcess: 0,
  };
  const block = { key: "light-default", engine: "k6", load: { durationS: options.durationS, warmupS: 0 } };
  // natively the proxy's own core, whose noise the sampler reads; in docker nothing is sampled
  const core = options.runtime === "native" ? 1 : 0;
  const ctx = {
    settings: { retries: options.retries, cpus: { loadgen: [0], proxy: [core], upstream: [core] } },
    runtime: { kind: options.runtime },
    deps: {
      engines: { getEngine: () => ({ run: () => Promise.resolve(options.engineRun()) }), classifyRepetition },
      ...(options.noiseSnapshot ? { noiseSnapshot: options.noiseSnapshot } : {}),
    },
    dir: "/tmp",
    signal: new AbortController().signal,
    isInterrupted: () => false,
    progress: new Progress({ write: (t: string) => lines.push(t) > 0 }, 10, false),
  } as unknown as BlockContext;
  return { a, block: block as unknown as Block, ctx, lines };
}
