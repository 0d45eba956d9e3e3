import path from "node:path";
import { formatCpuLayout } from "../../runner/cpus.js";
import type { Out } from "../../runner/measurement.js";
import { renderDryRun } from "../wall-clock/dry-run.js";
import { checkRunInputs } from "../../runner/preflight.js";
import { coreCount, resolveSettings } from "../../runner/settings.js";
import { estimateSeconds } from "../../runner/shard.js";
import { planRun } from "../../runner/variants.js";
import { extensibilityPlan } from "./extensibility/dry-run.js";
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
  const dir = request.out === undefined ? undefined : path.resolve(request.out);
  // The extensibility study's --out holds the study's report and a folder per test, not a results.json.
  const extensibility = study.manifest.layout === "extensibility";
  if (extensibility && dir !== undefined) await refuseUsedStudyOut(dir);
  await checkRunInputs(plan, extensibility ? undefined : dir);
  const { shown, timed, rows } = extensibility
    ? await extensibilityPlan(study.manifest, plan, overrides)
    : { shown: plan, timed: plan, rows: "" };
  const seconds = estimateSeconds(timed, settings.repetitions, settings.proxyLifetime);
  out.write(renderDryRun(shown, settings, formatCpuLayout(settings.cpus), { seconds }) + rows);
}
