import { existsSync } from "node:fs";
import { cp, mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { stringify } from "yaml";
import type { LoadedProxy } from "../../../manifests/load.js";
import type { ScenarioManifest } from "../../../manifests/schema.js";
import type { CpuLayout, Results } from "../../../results/schema.js";
import type { RunDeps } from "../../wall-clock/context.js";
import { coreCount, resolveSettings, runStamp, type RunRequest } from "../../../runner/settings.js";
import { UserError } from "../../../util/errors.js";
import { refuseUnusableOut } from "../../../runner/preflight.js";
import { studyScenario } from "../load.js";
import {
  runForStudy,
  studyRunSettings,
  writeStudyReport,
  type PreparedStudy,
  type StudyOverrides,
} from "../run.js";
import type { ExtensibilitySettings } from "../schema.js";
import { coprocessorChoices } from "./coprocessors.js";
import {
  BASELINE,
  derivedManifest,
  isGatewayTest,
  memoryCapHow,
  planOptions,
  variantScenario,
  type CoprocessorChoice,
  type ExtensionOption,
} from "./options.js";
import { renderExtensibilityReport, type TestRun } from "./report.js";
import { pickDefined, withoutUndefined } from "../../../util/objects.js";

/**
 * `proxybench study extensibility`: for each test and gateway, one variant run (the
 * runner's `--variant`): the gateway without extension, then each option it has, side by side
 * in rounds on the same pinned cores, each with its own results folder. A test a gateway
 * cannot do with an option is a blank row with the reason; a coprocessor that dies makes its
 * row invalid with its log, the others are kept.
 */

export interface ExtensibilityOutcome {
  dir: string;
  exitCode: number;
  markdown: string;
  runs: TestRun[];
}

/** The coprocessor's cores: one neither the gateway nor the load generator uses, else the load generator's. */
export function coprocessorCores(layout: { loadgen: number[]; proxy: number[] }, cores: number): number[] {
  const all = Array.from({ length: cores }, (_, i) => i);
  const free = all.find((c) => !layout.proxy.includes(c) && !layout.loadgen.includes(c));
  if (free !== undefined) return [free];
  const loadgen = layout.loadgen.find((c) => !layout.proxy.includes(c));
  return [loadgen ?? layout.proxy[0] ?? 0];
}

/** What every test of the study shares: the prepared study, and where and how its variants run. */
interface TestContext extends PreparedStudy {
  layout: CpuLayout;
  coprocessors: CoprocessorChoice[];
  settings: ExtensibilitySettings;
  overrides: StudyOverrides;
  deps: RunDeps;
  out: string;
  sidecarCpus: number[];
  /** The coprocessors run from their images (under docker), not natively. */
  coprocessorsInImages: boolean;
}

/** Writes one variant's folder: the gateway's folder with the derived proxy.yml, and the test's scenario. */
async function writeVariant(
  root: string,
  name: string,
  gateway: LoadedProxy,
  option: ExtensionOption | undefined,
  scenario: ScenarioManifest,
  ctx: TestContext,
): Promise<{ name: string; dir: string }> {
  const dir = path.join(root, name);
  const proxyDir = path.join(dir, "proxies", gateway.manifest.name);
  await cp(gateway.dir, proxyDir, { recursive: true });
  const manifest = derivedManifest(gateway.manifest, option, {
    memoryLimitBytes: ctx.settings.memoryLimitBytes,
    sidecarCpus: ctx.sidecarCpus,
    runtime: ctx.overrides.runtime ?? "native",
  });
  await writeFile(path.join(proxyDir, "proxy.yml"), stringify(manifest));
  const effect = ctx.settings.effects[scenario.name];
  const own = variantScenario(scenario, effect, name, ctx.study.file);
  const scenarioDir = path.join(dir, "scenarios", scenario.name);
  await mkdir(scenarioDir, { recursive: true });
  await writeFile(path.join(scenarioDir, "scenario.yml"), stringify(own));
  return { name, dir };
}

/** One test on one gateway: the variant run, or why there is nothing to compare. */
async function runTest(test: string, gateway: LoadedProxy, ctx: TestContext): Promise<TestRun> {
  const scenario = studyScenario(ctx.study, ctx.manifests, test)?.manifest;
  if (!scenario) throw new UserError(`${ctx.study.file}: scenarios: unknown scenario '${test}'`);
  const plan = planOptions(gateway, test, ctx.coprocessors, (f) => existsSync(f), process.env);
  const name = gateway.manifest.name;
  const run: TestRun = {
    test,
    gateway: name,
    options: plan.options.map((o) => o.name),
    skipped: plan.skipped,
  };
  if (plan.options.length === 0) return run;
  const root = path.join(ctx.out, "variants", `${test}-${name}`);
  const variants = [await writeVariant(root, BASELINE, gateway, undefined, scenario, ctx)];
  for (const option of plan.options)
    variants.push(await writeVariant(root, option.name, gateway, option, scenario, ctx));
  const m = ctx.study.manifest;
  const request: RunRequest = {
    proxies: [name],
    scenarios: [test],
    ...studyRunSettings(m, ctx.overrides),
    ...withoutUndefined({ loads: ctx.overrides.loads ?? m.loads }),
    variants,
    out: path.join(ctx.out, `${test}-${name}`),
  };
  const outcome = await runForStudy(request, m.name, ctx.deps, (r) => withStudyRecord(r, run, ctx));
  return { ...run, dir: outcome.dir, results: outcome.results };
}

/**
 * What the results keep beyond the run (pure): the test's options not run, then the gateways
 * (what the report says was not run); the gateway's and coprocessor's cores and memory cap.
 */
function withStudyRecord(results: Results, run: TestRun, ctx: TestContext): Results {
  const options = run.skipped.map((s) => ({ proxy: s.option, scenario: run.test, reason: s.reason }));
  const memoryBytes = ctx.settings.memoryLimitBytes;
  const how = (docker: boolean) =>
    docker ? "docker run --cpuset-cpus --memory" : "taskset; prlimit --data (RLIMIT_DATA)";
  return {
    ...results,
    skipped: [...results.skipped, ...options, ...ctx.split.skipped],
    environment: {
      ...results.environment,
      limits: {
        gateway: { cores: ctx.layout.proxy, memoryBytes, how: how(ctx.overrides.runtime === "docker") },
        coprocessor: { cores: ctx.sidecarCpus, memoryBytes, how: how(ctx.coprocessorsInImages) },
      },
    },
  };
}

/** The study's --out holds no study report yet, and is a folder it can write (its dry run checks it too). */
export async function refuseUsedStudyOut(out: string): Promise<void> {
  await refuseUnusableOut(out);
  if (existsSync(path.join(out, "study.md"))) {
    throw new UserError(`--out ${out} already holds a study report; choose another --out`);
  }
}

/** Runs every test on every runnable gateway, then writes and prints the study report. */
export async function runExtensibilityStudy(
  prepared: PreparedStudy,
  overrides: StudyOverrides,
  deps: RunDeps & { coprocessorsDir?: string },
): Promise<ExtensibilityOutcome> {
  const { study, manifests, split, request } = prepared;
  const settings = study.manifest.extensibility;
  if (!settings) throw new UserError(`${study.file}: extensibility: missing`);
  const cores = deps.cores ?? coreCount();
  const layout = resolveSettings(request, cores).settings.cpus;
  const out = path.resolve(overrides.out ?? path.join("results", `extensibility-${runStamp(new Date())}`));
  await refuseUsedStudyOut(out);
  const coprocessors = await coprocessorChoices(settings.coprocessors, {
    ...pickDefined(overrides, ["runtime", "imageTag"]),
    ...withoutUndefined({ root: deps.coprocessorsDir }),
  });
  const ctx: TestContext = {
    ...prepared,
    layout,
    coprocessors,
    settings,
    overrides,
    deps,
    out,
    sidecarCpus: coprocessorCores(layout, cores),
    coprocessorsInImages: coprocessors.some((c) => c.image !== undefined),
  };
  const runs: TestRun[] = [];
  for (const test of study.manifest.scenarios) {
    for (const name of split.runnable) {
      const gateway = manifests.proxies.get(name);
      if (gateway && isGatewayTest(gateway.manifest, test)) runs.push(await runTest(test, gateway, ctx));
    }
  }
  const markdown = renderExtensibilityReport({
    study: study.manifest,
    runs,
    skippedGateways: split.skipped,
    limits: {
      memoryLimitBytes: settings.memoryLimitBytes,
      coprocessorCores: ctx.sidecarCpus,
      layout,
      how: memoryCapHow(overrides.runtime === "docker", ctx.coprocessorsInImages),
    },
  });
  await writeStudyReport(out, markdown, deps);
  const bad = runs.some((r) => r.results?.cells.some((c: Results["cells"][number]) => c.status !== "ok"));
  return { dir: out, exitCode: bad ? 1 : 0, markdown, runs };
}
