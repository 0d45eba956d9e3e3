import { existsSync } from "node:fs";
import path from "node:path";
import { formatCpuLayout } from "../runner/cpus.js";
import { renderDryRun, type Out } from "../runner/dry-run.js";
import type { Plan, PlannedCell } from "../runner/plan.js";
import { checkRunInputs } from "../runner/preflight.js";
import { coreCount, resolveSettings } from "../runner/settings.js";
import { estimateSeconds } from "../runner/shard.js";
import { planRun } from "../runner/variants.js";
import { UserError } from "../util/errors.js";
import { pickDefined } from "../util/objects.js";
import { coprocessorChoices } from "./extensibility/coprocessors.js";
import { renderExtensibilityRows } from "./extensibility/dry-run.js";
import { isGatewayTest, planOptions, type CoprocessorChoice } from "./extensibility/options.js";
import { prepareStudy, type StudyOverrides } from "./run.js";

/**
 * `proxybench study NAME --dry-run`: what it would run and how long it takes, starting nothing
 * (the runner's dry run, runner/dry-run.ts, renders the plan).
 */

/** `proxybench study NAME --dry-run`: the study's plan and how long it will take. */
export async function dryRunStudy(name: string, overrides: StudyOverrides, out: Out = process.stdout) {
  const { study, split, request } = await prepareStudy(name, overrides, {});
  const m = study.manifest;
  out.write(`study ${m.name}: ${m.title}\n`);
  for (const s of split.skipped) out.write(`  skipped ${s.proxy}: ${s.reason}\n`);
  if (split.runnable.length === 0) {
    throw new UserError(`study ${m.name}: none of its proxies can run here`);
  }
  const { settings } = resolveSettings(request, coreCount());
  const plan = await planRun(settings, {});
  const layout = formatCpuLayout(settings.cpus);
  if (m.layout === "extensibility") {
    // Its --out holds the study's report and a folder per test, not a results.json.
    await checkRunInputs(plan, undefined);
    const where = pickDefined(overrides, ["runtime", "imageTag"]);
    const coprocessors = await coprocessorChoices(m.extensibility?.coprocessors ?? [], where);
    out.write(renderExtensibilityDryRun(plan, settings, layout, coprocessors));
    out.write(
      renderExtensibilityRows(plan, coprocessors, { ...where, fileExists: existsSync, env: process.env }),
    );
    return;
  }
  await checkRunInputs(plan, request.out === undefined ? undefined : path.resolve(request.out));
  out.write(renderDryRun(plan, settings, layout, { seconds: estimateSeconds(plan, settings.repetitions) }));
}

/**
 * The extensibility study measures each test on each gateway with every option side by side (a
 * variant per option, and the baseline): a cell's time counts once per variant.
 */
function renderExtensibilityDryRun(
  plan: Plan,
  settings: { repetitions: number },
  layout: string,
  coprocessors: readonly CoprocessorChoice[],
): string {
  const variantCount = (cell: PlannedCell) => {
    const test = cell.scenario.manifest.name;
    if (!isGatewayTest(cell.proxy.manifest, test)) return 0;
    return 1 + planOptions(cell.proxy, test, coprocessors, existsSync, process.env).options.length;
  };
  const perVariant = plan.blocks
    .map((b) => ({ ...b, cells: b.cells.flatMap((c) => Array<PlannedCell>(variantCount(c)).fill(c)) }))
    .filter((b) => b.cells.length > 0);
  const blocks = perVariant.map((b) => ({ ...b, cells: [...new Set(b.cells)] }));
  const seconds = estimateSeconds({ ...plan, blocks: perVariant }, settings.repetitions);
  return (
    renderDryRun({ ...plan, blocks }, settings, layout, { seconds }) +
    "each cell: its gateway without extension and with each of its options, side by side\n"
  );
}
