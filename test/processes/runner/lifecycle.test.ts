import { existsSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadManifests } from "../../../src/manifests/load.js";
import {
  runBlockLifecycle,
  type BlockLifecycle,
  type MeasurementStep,
} from "../../../src/runner/lifecycle.js";
import type { ActiveCell, CellContext } from "../../../src/runner/context.js";
import { NativeRuntime } from "../../../src/runner/native-runtime.js";
import type { Block, PlannedCell } from "../../../src/runner/plan.js";
import { resolveSettings } from "../../../src/runner/settings.js";
import { findExecutable } from "../../../src/util/paths.js";
import { liveProcesses } from "../../../src/util/processes.js";

// The block lifecycle every measurement shares (a wall-clock block, a counted run, a max-rate
// search), with a step that records what it is asked to do and real upstream processes.

const cpus = os.cpus().length >= 2 ? [1] : [0];

/** Three cells of passthrough: a and b share the upstream setting, c has another latency. */
async function threeCells(): Promise<PlannedCell[]> {
  const { proxies, scenarios } = await loadManifests();
  const scenario = scenarios.get("passthrough")!;
  const slower = {
    ...scenario,
    manifest: { ...scenario.manifest, upstream: { ...scenario.manifest.upstream, latencyMs: 1 } },
  };
  const load = { label: "c1", model: "constant-vus" as const, vus: 1, durationS: 1, warmupS: 0 };
  const cell = (id: string, s: typeof scenario): PlannedCell => ({
    id,
    proxy: proxies.get("direct")!,
    scenario: s,
    load,
    engine: "k6",
  });
  return [cell("a", scenario), cell("b", scenario), cell("c", slower)];
}

interface Recorder {
  events: string[];
  step: MeasurementStep<{ id: string; port: number }>;
}

/** A step that records its calls; `failAt`: the slot (0-based) whose measurement throws. */
function recorder(options: { failAt?: number; skip?: string } = {}): Recorder {
  const events: string[] = [];
  let slots = 0;
  return {
    events,
    step: {
      startCell: (planned, upstream) => {
        events.push(`start ${planned.id}`);
        return Promise.resolve({ id: planned.id, port: upstream.started.port });
      },
      skips: (c) => c.id === options.skip,
      measure: (c, round, upstreams) => {
        const alive = [...upstreams.values()].every((u) => u.started.proc.alive());
        events.push(`measure ${c.id} round ${round}${alive ? "" : " (an upstream is down)"}`);
        if (slots++ === options.failAt) return Promise.reject(new Error("the step failed"));
        return Promise.resolve();
      },
      afterRounds: () => events.push("after rounds"),
      stopCell: (c) => {
        events.push(`stop ${c.id}`);
        return Promise.resolve();
      },
    },
  };
}

async function block(
  cells: PlannedCell[],
  save: () => void,
): Promise<{ dir: string; lifecycle: BlockLifecycle }> {
  const dir = await mkdtemp(path.join(os.tmpdir(), "pb-lifecycle-"));
  const ctx = {
    settings: { repetitions: 2, cpus: { upstream: cpus } },
    dir,
    save: () => {
      save();
      return Promise.resolve();
    },
  };
  return { dir, lifecycle: { cells, logStem: "blk", ctx } };
}

describe("runBlockLifecycle", () => {
  it("one upstream per upstream setting, the cells in ABBA rounds, a save after each slot, all stopped", async () => {
    const cells = await threeCells();
    const { events, step } = recorder();
    const ports = new Map<string, number>();
    const { dir, lifecycle } = await block(cells, () => events.push("save"));
    const withPorts: typeof step = {
      ...step,
      startCell: async (planned, upstream) => {
        const c = await step.startCell(planned, upstream);
        ports.set(c.id, c.port);
        return c;
      },
    };
    await runBlockLifecycle(lifecycle, withPorts);
    const measured = (id: string, round: number) => [`measure ${id} round ${round}`, "save"];
    expect(events).toEqual([
      ...["a", "b", "c"].flatMap((id) => [`start ${id}`, "save"]),
      ...measured("a", 0),
      ...measured("b", 0),
      ...measured("c", 0),
      ...measured("c", 1),
      ...measured("b", 1),
      ...measured("a", 1),
      "after rounds",
      "save",
      "stop a",
      "stop b",
      "stop c",
    ]);
    expect(ports.get("a")).toBe(ports.get("b"));
    expect(ports.get("c")).not.toBe(ports.get("a"));
    expect(existsSync(path.join(dir, "logs", "blk-upstream.log"))).toBe(true);
    expect(existsSync(path.join(dir, "logs", "blk-upstream-2.log"))).toBe(true);
    expect(liveProcesses()).toEqual([]);
  });

  it("a cell the step skips at its start is neither measured nor stopped by the lifecycle", async () => {
    const cells = await threeCells();
    const { events, step } = recorder({ skip: "b" });
    const { lifecycle } = await block(cells, () => undefined);
    await runBlockLifecycle(lifecycle, step);
    expect(events.filter((e) => e.includes(" b"))).toEqual(["start b"]);
    expect(events.filter((e) => e.startsWith("measure"))).toHaveLength(4);
    expect(liveProcesses()).toEqual([]);
  });

  it("a step that fails mid-rounds: the error reaches the caller, every cell and upstream is stopped", async () => {
    const cells = await threeCells();
    const { events, step } = recorder({ failAt: 1 });
    const { lifecycle } = await block(cells, () => undefined);
    await expect(runBlockLifecycle(lifecycle, step)).rejects.toThrow("the step failed");
    expect(events.slice(-5)).toEqual([
      "measure a round 0",
      "measure b round 0",
      "stop a",
      "stop b",
      "stop c",
    ]);
    expect(liveProcesses()).toEqual([]);
  });
});

/** Two nginx cells of passthrough, as a block of a run plans them, with what starting them needs. */
async function nginxBlock(): Promise<{ cells: PlannedCell[]; block: Block; ctx: CellContext }> {
  const { proxies, scenarios } = await loadManifests();
  const load = { label: "c1", model: "constant-vus" as const, vus: 1, durationS: 1, warmupS: 0 };
  const scenario = scenarios.get("passthrough")!;
  const cells = ["n1", "n2"].map((id): PlannedCell => ({
    id,
    proxy: proxies.get("nginx")!,
    scenario,
    load,
    engine: "k6",
  }));
  const block = { key: "blk", scenario, load, engine: "k6", cells } as Block;
  const { settings } = resolveSettings(
    { proxies: ["nginx"], scenarios: ["passthrough"], repetitions: 2, roundOrder: "abba" },
    2,
  );
  const runtime = new NativeRuntime();
  const nginx = (await findExecutable("nginx"))!;
  const ctx: CellContext = {
    settings,
    runtime,
    upstreamRuntime: runtime,
    dir: await mkdtemp(path.join(os.tmpdir(), "pb-lifecycle-proxies-")),
    binaries: new Map([["nginx", { path: nginx, version: "test" }]]),
    results: { environment: {} },
    signal: new AbortController().signal,
    isInterrupted: () => false,
  };
  return { cells, block, ctx };
}

/** The proxy processes up (the upstreams aside). */
const proxiesUp = () => liveProcesses().filter((p) => !p.name.includes("upstream")).length;

describe("the proxies the lifecycle starts (a step's `proxies`)", () => {
  it("per slot: each slot's proxy up while it is measured and stopped after it, one at a time", async () => {
    const { cells, block, ctx } = await nginxBlock();
    const seen: string[] = [];
    const step: MeasurementStep<PlannedCell> = {
      proxies: { block, ctx, per: "slot" },
      startCell: (planned, _upstream, proxy) => {
        seen.push(`start ${planned.id}: ${proxy === undefined ? "no proxy" : "a proxy"}`);
        return Promise.resolve(planned);
      },
      skips: () => false,
      measure: async (planned, round, _upstreams, proxy) => {
        const answer = await fetch(`${proxy!.baseUrl}/health`).then((r) => r.status);
        seen.push(`${planned.id} round ${round}: ${proxy!.cell.id} answers ${answer}, ${proxiesUp()} up`);
      },
    };
    await runBlockLifecycle({ cells, logStem: "blk", ctx: { settings: ctx.settings, dir: ctx.dir } }, step);
    expect(seen).toEqual([
      "start n1: no proxy",
      "start n2: no proxy",
      ...[
        ["n1", 0],
        ["n2", 0],
        ["n2", 1],
        ["n1", 1],
      ].map(([id, round]) => `${id} round ${round}: ${id} answers 200, 1 up`),
    ]);
    expect(liveProcesses()).toEqual([]);
  });

  it("per block: every proxy up before the first round, given to startCell, left to the step to stop", async () => {
    const { cells, block, ctx } = await nginxBlock();
    const started: ActiveCell[] = [];
    const upAtRounds: number[] = [];
    const step: MeasurementStep<ActiveCell> = {
      proxies: { block, ctx, per: "block" },
      startCell: (_planned, _upstream, proxy) => {
        started.push(proxy!);
        return Promise.resolve(proxy!);
      },
      skips: (a) => a.stopped,
      measure: (a, _round, _upstreams, proxy) => {
        expect(proxy).toBeUndefined();
        upAtRounds.push(proxiesUp());
        return Promise.resolve();
      },
      stopCell: (a) => a.proc!.stop(),
    };
    await runBlockLifecycle({ cells, logStem: "blk", ctx: { settings: ctx.settings, dir: ctx.dir } }, step);
    expect(started.map((a) => [a.cell.id, a.proc !== undefined])).toEqual([
      ["n1", true],
      ["n2", true],
    ]);
    expect(upAtRounds).toEqual([2, 2, 2, 2]);
    expect(liveProcesses()).toEqual([]);
  });
  it("renew: a block's proxy started anew before a slot once it has served, not before", async () => {
    const { cells, block, ctx } = await nginxBlock();
    const pids = new Map<string, Array<number | undefined>>();
    const step: MeasurementStep<ActiveCell> = {
      proxies: { block, ctx, per: "block", renew: true },
      startCell: (_planned, _upstream, proxy) => Promise.resolve(proxy!),
      skips: (a) => a.stopped,
      measure: async (a) => {
        const answer = await fetch(`${a.baseUrl}/health`).then((r) => r.status);
        expect(answer).toBe(200);
        pids.set(a.cell.id, [...(pids.get(a.cell.id) ?? []), a.proc!.pid]);
        a.servedByProcess += a.cell.id === "n1" ? 1 : 0;
      },
      stopCell: (a) => a.proc!.stop(),
    };
    await runBlockLifecycle({ cells, logStem: "blk", ctx: { settings: ctx.settings, dir: ctx.dir } }, step);
    const [n1First, n1Second] = pids.get("n1")!;
    const [n2First, n2Second] = pids.get("n2")!;
    expect(n1Second).not.toBe(n1First);
    expect(n2Second).toBe(n2First);
    expect(liveProcesses()).toEqual([]);
  });
});
