import type { EngineAdapter } from "../engines/types.js";
import type { ManifestSet } from "../manifests/load.js";
import type { Engine } from "../results/schema.js";
import type { LoadedStudy } from "../measures/study/load.js";
import { studySetupCommand } from "../measures/study/list.js";
import { existsSync } from "node:fs";
import { coprocessorBinary, loadCoprocessor } from "../measures/study/extensibility/coprocessors.js";
import { okOrWarn, type Check } from "./check.js";
import { engineSetupCommand } from "../runner/preflight.js";
import { nativeAvailability } from "../runner/proxy-binary.js";

/**
 * `proxybench doctor --study NAME` and `--engine NAME`: what that study or engine needs here,
 * each missing piece with the one command that installs it.
 */

/** An engine found (ok) or missing: `fail` when the named run needs it, else `warn`. */
export async function engineCheck(
  engine: Engine,
  getEngine: (name: Engine) => EngineAdapter,
  neededBy: string | undefined,
  fix: string = engineSetupCommand(engine),
): Promise<Check> {
  const needs = neededBy ? { neededBy } : {};
  try {
    const { path, version } = await getEngine(engine).locate();
    return { name: engine, level: "ok", detail: `${version} (${path})`, ...needs };
  } catch {
    return {
      name: engine,
      level: neededBy ? "fail" : "warn",
      detail: `not found (needed ${neededBy ? `by ${neededBy}` : `for --engine ${engine}`})`,
      fix,
      ...needs,
    };
  }
}

/** The study's engine and each of its proxies: native here, image only, or installable. */
export async function studyChecks(
  study: LoadedStudy,
  manifests: ManifestSet,
  getEngine: (name: Engine) => EngineAdapter,
): Promise<Check[]> {
  const m = study.manifest;
  const fix = studySetupCommand(m.name);
  const neededBy = `study ${m.name}`;
  const checks = [await engineCheck(m.engine, getEngine, neededBy, fix)];
  for (const name of m.proxies) {
    const proxy = manifests.proxies.get(name);
    const label = `${m.name}: ${name}`;
    if (!proxy) {
      checks.push({ name: label, level: "fail", detail: "no proxy manifest of that name", neededBy });
      continue;
    }
    const a = await nativeAvailability(proxy);
    if (a.kind === "direct") checks.push({ name: label, level: "ok", detail: "no proxy (baseline)" });
    if (a.kind === "found") checks.push({ name: label, level: "ok", detail: `${a.version} (${a.path})` });
    if (a.kind === "image-only") {
      checks.push({
        name: label,
        level: "warn",
        detail: "image only: skipped here, measured with --runtime docker or on GitHub Actions",
      });
    }
    if (a.kind === "missing") {
      checks.push({ name: label, level: "fail", detail: `'${a.binary}' not found`, fix, neededBy });
    }
  }
  if (m.extensibility) checks.push(...(await extensionChecks(study, manifests, fix)));
  return checks;
}

/**
 * The extensibility study's extra pieces: each gateway's extension modules and each
 * coprocessor. A missing one is a warning (its rows are skipped, with the reason), never a
 * failure: the rest of the study still runs.
 */
async function extensionChecks(study: LoadedStudy, manifests: ManifestSet, fix: string): Promise<Check[]> {
  const m = study.manifest;
  const checks: Check[] = [];
  for (const name of m.proxies) {
    for (const [kind, ext] of Object.entries(manifests.proxies.get(name)?.manifest.extensions ?? {})) {
      if (!ext?.requires) continue;
      const label = `${m.name}: ${name} ${kind}`;
      const file = ext.requires.file;
      checks.push(
        okOrWarn(label, existsSync(file), file, { detail: `${file} not found: its rows are skipped`, fix }),
      );
    }
  }
  for (const name of m.extensibility?.coprocessors ?? []) {
    const where = await coprocessorBinary(await loadCoprocessor(name));
    const label = `${m.name}: coprocessor ${name}`;
    checks.push(
      "path" in where
        ? { name: label, level: "ok", detail: where.path }
        : { name: label, level: "warn", detail: `${where.reason}: its rows are skipped`, fix },
    );
  }
  return checks;
}
