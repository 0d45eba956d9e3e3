import { existsSync } from "node:fs";
import path from "node:path";
import { RESULTS_FILE } from "../../results/io.js";
import { holdsResults, mergeResults, readSources, runsIn, type Source } from "../../results/merge.js";
import type { Results } from "../../results/schema.js";
import { UserError } from "../../util/errors.js";
import { isDirectory, PROJECT_ROOT } from "../../util/paths.js";
import { BASELINE, memoryCapHow } from "./extensibility/options.js";
import {
  renderExtensibilityReport,
  type ExtensibilityReportInput,
  type TestRun,
} from "./extensibility/report.js";
import { BUILTIN_STUDIES_DIR, findStudy, type LoadedStudy } from "./load.js";
import { renderStudyReport } from "./report.js";

/**
 * A study run's folder read back (`proxybench report`, the PR comment): recognised by the
 * `settings.study` of its results.json files (the folder's own, or one per test one level down as
 * the extensibility study writes them), its report rendered again from those files by the
 * built-in study's own renderer. study.md is never read: an artifact's text is untrusted, while
 * the results are validated and the renderers escape every string they print.
 */

export interface StudyRun {
  /** The study's name, as the results name it (a built-in study). */
  name: string;
  title: string;
  /** What its table sets side by side: the extensibility study's options of a gateway, else proxies. */
  compares: "options" | "proxies";
  /** The folders whose results.json were read. */
  dirs: string[];
  /** The study's report, in the layout of its study.md. */
  markdown: string;
  /** The first test's results (the run's commit and machine). */
  head: Results;
}

const fileList = (read: readonly Source[]) => read.map((r) => path.join(r.from, RESULTS_FILE)).join(", ");

/** The one study the results name, or none; a mix of studies, or of a study and plain runs, is an error. */
function studyOf(dir: string, read: readonly Source[]): string | undefined {
  const names = [...new Set(read.map((r) => r.results.settings.study))];
  if (names.length === 1) return names[0];
  const plain = read.filter((r) => r.results.settings.study === undefined);
  const studies = names.filter((n): n is string => n !== undefined);
  const each = studies
    .map((n) => `study ${n}: ${fileList(read.filter((r) => r.results.settings.study === n))}`)
    .join("; ");
  if (plain.length > 0) {
    throw new UserError(
      `${dir}: a study run mixed with plain runs (${each}; no study: ${fileList(plain)}): give a study run's folder alone`,
    );
  }
  throw new UserError(`${dir}: results of ${studies.length} different studies (${each}): give one study run`);
}

/**
 * The built-in studies' folder: the package's studies/, or, from the bundled report action
 * (report/dist/index.js, whose package root is report/), the repository's studies/ beside it.
 */
function builtinStudiesDir(): string {
  const beside = path.join(PROJECT_ROOT, "..", "studies");
  return existsSync(BUILTIN_STUDIES_DIR) || !existsSync(beside) ? BUILTIN_STUDIES_DIR : beside;
}

/** One test of the extensibility study, from its variant run's results. */
function testRun({ from, results }: Source): TestRun {
  const gateway = results.settings.proxies[0] ?? "";
  const test = results.settings.scenarios[0] ?? "";
  const options = (results.settings.variants ?? []).map((v) => v.name).filter((n) => n !== BASELINE);
  const skipped = results.skipped
    .filter((s) => s.scenario === test && s.proxy !== gateway)
    .map((s) => ({ option: s.proxy, reason: s.reason }));
  return { test, gateway, options, skipped, dir: from, results };
}

/** The extensibility report's input from its tests' results: the study's test order, then gateway order. */
function extensibilityInput(study: LoadedStudy, read: readonly Source[]): ExtensibilityReportInput {
  const m = study.manifest;
  const rank = (r: TestRun) => m.scenarios.indexOf(r.test) * 1000 + m.proxies.indexOf(r.gateway);
  const runs = read.map(testRun).sort((a, b) => rank(a) - rank(b));
  const head = read[0]!.results;
  const limits = head.environment.limits;
  const inDocker = (role: string) => limits?.[role]?.how.startsWith("docker") ?? false;
  const skippedGateways = new Map<string, string>();
  for (const { results } of read)
    for (const s of results.skipped) if (s.scenario === undefined) skippedGateways.set(s.proxy, s.reason);
  return {
    study: m,
    runs,
    skippedGateways: [...skippedGateways].map(([proxy, reason]) => ({ proxy, reason })),
    limits: {
      memoryLimitBytes: limits?.gateway?.memoryBytes ?? m.extensibility?.memoryLimitBytes ?? 0,
      coprocessorCores: limits?.coprocessor?.cores ?? [],
      layout: head.settings.cpus,
      how: memoryCapHow(inDocker("gateway"), inDocker("coprocessor")),
    },
  };
}

/** The study's report from its results, in its own layout (pure). */
function renderFromResults(study: LoadedStudy, read: readonly Source[], headingLevel: number): string {
  const m = study.manifest;
  if (m.layout === "extensibility")
    return renderExtensibilityReport({ ...extensibilityInput(study, read), headingLevel });
  const results = mergeResults(read);
  const run = new Set([...results.settings.proxies, ...results.skipped.map((s) => s.proxy)]);
  return renderStudyReport({
    study: { ...m, proxies: m.proxies.filter((p) => run.has(p)) },
    results,
    headingLevel,
  });
}

/**
 * The study run in a folder, or undefined when its results name no study (a plain run) or it holds
 * none; errors name the files.
 */
export async function readStudyRun(
  dir: string,
  options: { headingLevel?: number } = {},
): Promise<StudyRun | undefined> {
  if (!(await isDirectory(dir))) return undefined;
  const read = await readSources((await runsIn(dir, undefined, holdsResults)).map(([d]) => d));
  const name = read.length > 0 ? studyOf(dir, read) : undefined;
  if (name === undefined) return undefined;
  // The built-in study the results name; an unknown name is an error naming the file and field.
  const study = await findStudy(
    name,
    builtinStudiesDir(),
    (known) => `${fileList(read)}: settings.study: '${name}' is not a built-in study (known: ${known})`,
  );
  return {
    name,
    title: study.manifest.title,
    compares: study.manifest.layout === "extensibility" ? "options" : "proxies",
    dirs: read.map((r) => r.from),
    markdown: renderFromResults(study, read, options.headingLevel ?? 2),
    head: read[0]!.results,
  };
}
