import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { loadManifests, type LoadedProxy, type ManifestSet } from "../../manifests/load.js";
import type { Load, Results } from "../../results/schema.js";
import type { StudyManifest } from "./schema.js";
import { nativeAvailability, type NativeAvailability } from "../../runner/proxy-binary.js";
import { ResultsFile } from "../../runner/results-file.js";
import type { RunDeps } from "../wall-clock/context.js";
import { runBenchmark, type RunOutcome } from "../wall-clock/run.js";
import type { RunRequest } from "../../runner/settings.js";
import type { Out } from "../../runner/measurement.js";
import { UserError } from "../../util/errors.js";
import { assertConcurrencyLimits, type SystemLimits } from "./limits.js";
import {
  BUILTIN_STUDIES_DIR,
  checkStudyReferences,
  findStudy,
  loadLabels,
  studyLoads,
  type LoadedStudy,
} from "./load.js";
import { mergeSkipped, renderStudyReport } from "./report.js";
import { pickDefined } from "../../util/objects.js";

/**
 * `proxybench study NAME`: the study's proxies, scenarios, loads, duration, repetitions
 * and engine as a run request for the runner; the proxies that cannot run here (image only, or
 * binary missing) are skipped with the reason and never shown as measured; the report is the
 * layout the original published.
 */

export interface StudyProxySplit {
  runnable: string[];
  skipped: Array<{ proxy: string; reason: string }>;
}

/** Why a proxy cannot run with this runtime, or undefined when it can (pure). */
function unrunnableReason(
  m: LoadedProxy["manifest"] | undefined,
  a: NativeAvailability | undefined,
  runtime: "native" | "docker",
): string | undefined {
  if (!m) return "no manifest for it";
  if (runtime === "docker")
    return m.kind === "direct" || m.image ? undefined : "no image: runs natively only";
  if (a?.kind === "direct" || a?.kind === "found") return undefined;
  if (a?.kind === "image-only")
    return "image only: measured on GitHub Actions or with --runtime docker, not here";
  if (a?.kind === "missing") return `'${a.binary}' not found (fix: ${a.fix})`;
  return "availability unknown";
}

/** Which of the study's proxies can run with this runtime, and why the others cannot (pure). */
export function splitStudyProxies(
  proxies: readonly string[],
  availability: ReadonlyMap<string, NativeAvailability>,
  manifests: ReadonlyMap<string, LoadedProxy>,
  runtime: "native" | "docker" = "native",
): StudyProxySplit {
  const split: StudyProxySplit = { runnable: [], skipped: [] };
  for (const proxy of proxies) {
    const reason = unrunnableReason(manifests.get(proxy)?.manifest, availability.get(proxy), runtime);
    if (reason === undefined) split.runnable.push(proxy);
    else split.skipped.push({ proxy, reason });
  }
  return split;
}

/** User flags a study run takes over the study's own settings (`--proxies`: only these of its proxies). */
export const STUDY_OVERRIDES = [
  "proxies",
  "repetitions",
  "durationS",
  "warmupS",
  "loads",
  "cpus",
  "runtime",
  "imageTag",
  "proxiesDirs",
  "out",
  "noiseLimit",
  "retries",
] as const satisfies ReadonlyArray<keyof RunRequest>;

export type StudyOverrides = Pick<RunRequest, (typeof STUDY_OVERRIDES)[number]>;

/** The study's proxies, or the subset `--proxies` asks for (pure; an outsider is an error). */
export function selectStudyProxies(study: LoadedStudy, asked?: string[]): string[] {
  const all = study.manifest.proxies;
  if (!asked) return all;
  const outside = asked.filter((p) => !all.includes(p));
  if (outside.length > 0) {
    throw new UserError(
      `--proxies: ${outside.map((p) => `'${p}'`).join(", ")} ${outside.length === 1 ? "is" : "are"} not in study ${study.manifest.name} (its proxies: ${all.join(", ")})`,
    );
  }
  return all.filter((p) => asked.includes(p));
}

/** Each `--load` label is a load of one of the study's scenarios (pure; the error lists them). */
function checkStudyLoads(study: LoadedStudy, manifests: ManifestSet, labels?: readonly string[]): void {
  const known = loadLabels(studyLoads(study, manifests));
  const unknown = (labels ?? []).filter((label) => !known.includes(label));
  if (unknown.length === 0) return;
  throw new UserError(
    `--load: study ${study.manifest.name} has no load ${unknown.map((l) => `'${l}'`).join(", ")} (its loads: ${known.join(", ")})`,
  );
}

/** What every run of a study is asked: its engine, rounds and durations, and the user's flags (pure). */
export function studyRunSettings(m: StudyManifest, overrides: StudyOverrides) {
  return {
    engine: m.engine,
    repetitions: overrides.repetitions ?? m.repetitions,
    durationS: overrides.durationS ?? m.durationS,
    warmupS: overrides.warmupS ?? m.warmupS,
    ...pickDefined(overrides, ["cpus", "runtime", "imageTag", "noiseLimit", "retries"]),
  } satisfies RunRequest;
}

/** The run request for the runner (pure). */
export function studyRunRequest(
  study: LoadedStudy,
  manifests: ManifestSet,
  split: StudyProxySplit,
  overrides: StudyOverrides = {},
): RunRequest {
  const m = study.manifest;
  return {
    proxies: split.runnable,
    scenarios: m.scenarios,
    ...studyRunSettings(m, overrides),
    loads: loadLabels(studyLoads(study, manifests, overrides.loads ?? m.loads)),
    ...(m.tls ? { tls: true } : {}),
    ...(study.ownScenarios.size > 0 ? { scenariosDirs: [path.join(study.dir, "scenarios")] } : {}),
    ...(overrides.proxiesDirs?.length ? { proxiesDirs: overrides.proxiesDirs } : {}),
    ...pickDefined(overrides, ["out"]),
  };
}

/** The most concurrent connections of the loads, and whether any of them opens one per request. */
export function loadConcurrency(
  loads: readonly Load[],
  engine: string,
): { connections: number; keepAlive: boolean } {
  const connections = Math.max(0, ...loads.map((l) => l.connections ?? l.vus ?? 0));
  // ab does not reuse connections unless told to; k6 and wrk do.
  const keepAlive = loads.every((l) => l.keepAlive ?? engine !== "ab");
  return { connections, keepAlive };
}

export interface StudyRunDeps extends RunDeps {
  studiesDir?: string;
  /** Where the extensibility study finds its coprocessors (tests); default coprocessors/. */
  coprocessorsDir?: string;
  /** Limits to check instead of this machine's (tests). */
  limits?: SystemLimits;
}

export interface StudyOutcome extends RunOutcome {
  study: LoadedStudy;
  split: StudyProxySplit;
  /** The study report (also written to DIR/study.md and printed). */
  markdown: string;
}

/** A study checked and planned: what it runs, what it skips, the runner's request. */
export interface PreparedStudy {
  study: LoadedStudy;
  manifests: ManifestSet;
  split: StudyProxySplit;
  request: RunRequest;
}

/** Everything a study run decides before it starts anything. */
export async function prepareStudy(
  name: string,
  overrides: StudyOverrides,
  deps: Pick<StudyRunDeps, "studiesDir" | "builtinDirs">,
): Promise<PreparedStudy> {
  // The study is `proxybench study NAME`'s argument, not a flag.
  const study = await findStudy(
    name,
    deps.studiesDir ?? BUILTIN_STUDIES_DIR,
    (known) => `study ${name}: unknown study (known: ${known})`,
  );
  const manifests = await loadManifests({
    ...deps.builtinDirs,
    ...(overrides.proxiesDirs?.length ? { proxiesDirs: overrides.proxiesDirs } : {}),
  });
  const problems = checkStudyReferences(study, manifests);
  if (problems.length > 0) throw new UserError(problems.join("\n"));
  checkStudyLoads(study, manifests, overrides.loads);
  const selected = selectStudyProxies(study, overrides.proxies);
  const availability = new Map<string, NativeAvailability>();
  for (const proxy of selected) {
    const loaded = manifests.proxies.get(proxy);
    if (loaded) availability.set(proxy, await nativeAvailability(loaded));
  }
  const split = splitStudyProxies(selected, availability, manifests.proxies, overrides.runtime);
  const request = studyRunRequest(study, manifests, split, overrides);
  return { study, manifests, split, request };
}

/** The study's first lines: its title, then each proxy skipped and why; none left to run is an error. */
export function announceStudy({ study, split }: PreparedStudy, out: Out, indent = ""): void {
  const m = study.manifest;
  out.write(`study ${m.name}: ${m.title}\n`);
  for (const s of split.skipped) out.write(`${indent}skipped ${s.proxy}: ${s.reason}\n`);
  if (split.runnable.length === 0) {
    const what = m.layout === "extensibility" ? "gateways" : "proxies";
    throw new UserError(
      `study ${m.name}: none of its ${what} can run here (${split.skipped.map((s) => s.proxy).join(", ")})`,
    );
  }
}

/** A study of one run: the machine's limits checked, the run, the study's report written and printed. */
export async function runOneStudyRun(
  { study, manifests, split, request }: PreparedStudy,
  overrides: StudyOverrides,
  deps: StudyRunDeps,
): Promise<StudyOutcome> {
  const m = study.manifest;
  const { connections, keepAlive } = loadConcurrency(studyLoads(study, manifests, request.loads), m.engine);
  await assertConcurrencyLimits(connections, { keepAlive }, deps.limits);
  const outcome = await runForStudy(request, m.name, deps, (r) => ({
    ...r,
    skipped: mergeSkipped(r.skipped, split.skipped),
  }));
  const markdown = renderStudyReport({
    study: { ...m, proxies: selectStudyProxies(study, overrides.proxies) },
    results: outcome.results,
  });
  await writeStudyReport(outcome.dir, markdown, deps);
  return { ...outcome, study, split, markdown };
}

/** One run of the runner for a study: its results named the study's, amended, and saved again. */
export async function runForStudy(
  request: RunRequest,
  study: string,
  deps: RunDeps,
  amend: (results: Results) => Results,
): Promise<RunOutcome> {
  const outcome = await runBenchmark(request, { ...deps, renderReport: undefined });
  const results = amend({ ...outcome.results, settings: { ...outcome.results.settings, study } });
  await new ResultsFile(outcome.dir).save(results);
  return { ...outcome, results };
}

/** Writes the study report to DIR/study.md and prints it, with where it is. */
export async function writeStudyReport(dir: string, markdown: string, deps: Pick<RunDeps, "stdout">) {
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, "study.md"), markdown);
  (deps.stdout ?? process.stdout).write(`${markdown}\nstudy report: ${path.join(dir, "study.md")}\n`);
}
