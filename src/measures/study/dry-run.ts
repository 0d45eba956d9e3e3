import { existsSync } from "node:fs";
import path from "node:path";
import { formatCpuLayout } from "../../runner/cpus.js";
import type { Out } from "../../runner/measurement.js";
import { renderDryRun } from "../wall-clock/dry-run.js";
import { checkRunInputs } from "../../runner/preflight.js";
import { coreCount, resolveSettings } from "../../runner/settings.js";
import { estimateSeconds } from "../../runner/shard.js";
import { planRun } from "../../runner/variants.js";
import { pickDefined } from "../../util/objects.js";
import { coprocessorChoices } from "./extensibility/coprocessors.js";
import { renderExtensibilityDryRun } from "./extensibility/dry-run.js";
import { refuseUsedStudyOut } from "./extensibility/run.js";
import { announceStudy, prepareStudy, type StudyOverrides } from "./run.js";

/**
 * `proxybench study NAME --dry-run`: what it would run and how long it takes, starting nothing
 * (the runner's dry run, measures/wall-clock/dry-run.ts, renders the plan).
 */

/** `proxybench study NAME --dry-run`: the study's plan and how long it will take. */
export async function dryRunStudy(name: string, overrides: StudyOverrides, out: Out = process.stdout) {
  const prepared = await prepareStudy(name, overrides, {});
  const { study, request } = prepared;
  announceStudy(prepared, out, "  ");
  const { settings } = resolveSettings(request, coreCount());
  const plan = await planRun(settings, {});
  const layout = formatCpuLayout(settings.cpus);
  if (study.manifest.layout === "extensibility") {
    // Its --out holds the study's report and a folder per test, not a results.json.
    if (request.out !== undefined) await refuseUsedStudyOut(path.resolve(request.out));
    await checkRunInputs(plan, undefined);
    const where = pickDefined(overrides, ["runtime", "imageTag"]);
    const coprocessors = await coprocessorChoices(study.manifest.extensibility?.coprocessors ?? [], where);
    const ctx = { ...where, fileExists: existsSync, env: process.env };
    out.write(renderExtensibilityDryRun(plan, settings, layout, coprocessors, ctx));
    return;
  }
  await checkRunInputs(plan, request.out === undefined ? undefined : path.resolve(request.out));
  out.write(
    renderDryRun(plan, settings, layout, {
      seconds: estimateSeconds(plan, settings.repetitions, settings.proxyLifetime),
    }),
  );
}
