import type { EngineAdapter } from "../engines/types.js";
import type { ManifestSet } from "../manifests/load.js";
import type { Engine } from "../results/schema.js";
import type { LoadedStudy } from "../studies/load.js";
import { studySetupCommand } from "../studies/list.js";
import type { Check } from "./doctor.js";
import { engineSetupCommand } from "./preflight.js";
import { nativeAvailability } from "./proxy-binary.js";

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
  try {
    const { path, version } = await getEngine(engine).locate();
    return { name: engine, level: "ok", detail: `${version} (${path})` };
  } catch {
    return {
      name: engine,
      level: neededBy ? "fail" : "warn",
      detail: `not found (needed ${neededBy ? `by ${neededBy}` : `for --engine ${engine}`})`,
      fix,
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
  const checks = [await engineCheck(m.engine, getEngine, `study ${m.name}`, fix)];
  for (const name of m.proxies) {
    const proxy = manifests.proxies.get(name);
    const label = `${m.name}: ${name}`;
    if (!proxy) {
      checks.push({ name: label, level: "fail", detail: "no proxy manifest of that name" });
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
      checks.push({ name: label, level: "fail", detail: `'${a.binary}' not found`, fix });
    }
  }
  return checks;
}
