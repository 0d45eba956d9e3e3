import path from "node:path";
import {
  loadEachFolder,
  loadManifestFile,
  loadScenarioFile,
  type LoadedScenario,
  type ManifestSet,
  type ParsedManifest,
} from "../../manifests/load.js";
import type { Load } from "../../results/schema.js";
import { issuePath, UserError } from "../../util/errors.js";
import { PROJECT_ROOT } from "../../util/paths.js";
import { StudyManifest } from "./schema.js";

/**
 * Finds and validates studies: `studies/<name>/study.yml`, with the study's own scenarios in
 * `studies/<name>/scenarios/<scenario>/scenario.yml`. Problems read `file:line: field: message`.
 */

export const BUILTIN_STUDIES_DIR = path.join(PROJECT_ROOT, "studies");
const STUDY_FILE = "study.yml";

export interface LoadedStudy extends ParsedManifest<StudyManifest> {
  file: string;
  dir: string;
  /** The study's own scenarios (its `scenarios/` folder), by name. */
  ownScenarios: Map<string, LoadedScenario>;
}

export async function loadStudyFile(file: string): Promise<LoadedStudy> {
  const ownScenarios = new Map<string, LoadedScenario>();
  const scenariosDir = path.join(path.dirname(file), "scenarios");
  const loaded = await loadManifestFile(StudyManifest, file, () =>
    loadEachFolder(scenariosDir, "scenario.yml", (f) => loadScenarioFile(f, true), ownScenarios),
  );
  return { ...loaded, file, ownScenarios };
}

/** Every study in `dir` (default: the built-in `studies/`), by name. */
export async function loadStudies(dir: string = BUILTIN_STUDIES_DIR): Promise<Map<string, LoadedStudy>> {
  const out = new Map<string, LoadedStudy>();
  const problems = await loadEachFolder(dir, STUDY_FILE, loadStudyFile, out);
  if (problems.length > 0) throw new UserError(problems.join("\n"));
  return out;
}

/** The study named `name`; an unknown name is an error (`unknown`'s words) listing the known ones. */
export async function findStudy(
  name: string,
  dir: string = BUILTIN_STUDIES_DIR,
  unknown = (known: string) => `--study ${name}: unknown study (known: ${known})`,
): Promise<LoadedStudy> {
  const studies = await loadStudies(dir);
  const study = studies.get(name);
  if (!study) throw new UserError(unknown([...studies.keys()].join(", ") || "none"));
  return study;
}

/** The scenario a study means by `name`: its own first, then the built-in and user ones. */
export function studyScenario(
  study: LoadedStudy,
  manifests: ManifestSet,
  name: string,
): LoadedScenario | undefined {
  return study.ownScenarios.get(name) ?? manifests.scenarios.get(name);
}

/** The loads of the study's scenarios, in order; with `labels`, only the loads of those labels. */
export function studyLoads(study: LoadedStudy, manifests: ManifestSet, labels?: readonly string[]): Load[] {
  const loads = study.manifest.scenarios.flatMap(
    (name) => studyScenario(study, manifests, name)?.manifest.loads ?? [],
  );
  return labels ? loads.filter((l) => labels.includes(l.label)) : loads;
}

/** The labels of `loads`, each once, in order. */
export function loadLabels(loads: readonly Load[]): string[] {
  return [...new Set(loads.map((l) => l.label))];
}

/**
 * Checks what a study names against what exists: its proxies, its scenarios, and its load
 * labels (each must exist in at least one of its scenarios). One line per problem.
 */
export function checkStudyReferences(study: LoadedStudy, manifests: ManifestSet): string[] {
  const m = study.manifest;
  const at = (field: PropertyKey[]) => `${study.at(field)}: ${issuePath(field)}`;
  const problems: string[] = [];
  const knownProxies = [...manifests.proxies.keys()].sort().join(", ");
  m.proxies.forEach((p, i) => {
    if (!manifests.proxies.has(p))
      problems.push(`${at(["proxies", i])}: unknown proxy '${p}' (known: ${knownProxies})`);
  });
  const knownScenarios = [...new Set([...study.ownScenarios.keys(), ...manifests.scenarios.keys()])]
    .sort()
    .join(", ");
  const scenarios: LoadedScenario[] = [];
  m.scenarios.forEach((s, i) => {
    const found = studyScenario(study, manifests, s);
    if (found) scenarios.push(found);
    else problems.push(`${at(["scenarios", i])}: unknown scenario '${s}' (known: ${knownScenarios})`);
  });
  const labels = loadLabels(studyLoads(study, manifests));
  (m.loads ?? []).forEach((label, i) => {
    if (scenarios.length === m.scenarios.length && !labels.includes(label)) {
      problems.push(
        `${at(["loads", i])}: no scenario of the study has a load '${label}' (they have: ${labels.join(", ")})`,
      );
    }
  });
  return problems;
}
