import { existsSync } from "node:fs";
import path from "node:path";
import type { ManifestDirs } from "../manifests/load.js";
import { coprocessorChoices } from "../studies/extensibility/coprocessors.js";
import { renderExtensibilityRows } from "../studies/extensibility/dry-run.js";
import { isGatewayTest, planOptions, type CoprocessorChoice } from "../studies/extensibility/options.js";
import { pickDefined } from "../util/objects.js";
import { DEFAULT_MAX_RATE_OPTIONS } from "../studies/max-rate.js";
import { DEFAULT_STEP_DURATION_S, resolveSearch, type FindMaxRatesRequest } from "../studies/max-rate-run.js";
import { prepareStudy, type StudyOverrides } from "../studies/run.js";
import { formatCpuLayout } from "./cpus.js";
import { skippedName, type Plan, type PlannedCell } from "./plan.js";
import { checkRunInputs } from "./preflight.js";
import { coreCount, resolveSettings, withRoundsPlan, type RunRequest } from "./settings.js";
import { estimateSeconds, shardOfKeys, shardPlan } from "./shard.js";
import { planRun, planVariantRounds } from "./variants.js";
import { UserError } from "../util/errors.js";

/**
 * `proxybench run --dry-run`: the plan (blocks, cells, repetitions) and its estimated wall
 * time, and how long the longest shard would take over 2 to 4 runners, without starting
 * anything: a caller picks its shard count from it. It refuses what the run would refuse before
 * starting (an --out that holds results, nothing to run, a k6 script that cannot load). A study
 * and a max-rate search print how long they will take.
 */

function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = s % 60;
  return h > 0
    ? `${h}h${String(m).padStart(2, "0")}m`
    : m > 0
      ? `${m}m${String(rest).padStart(2, "0")}s`
      : `${rest}s`;
}

/** The longest shard's estimate for each shard count from 2 up to `upTo` (and the cell count). */
export function shardEstimates(plan: Plan, repetitions: number, upTo = 4): Array<[number, number]> {
  const cells = shardOfKeys(plan, 1).size;
  const out: Array<[number, number]> = [];
  for (let count = 2; count <= Math.min(upTo, cells); count++) {
    const longest = Math.max(
      ...Array.from({ length: count }, (_, i) =>
        estimateSeconds(shardPlan(plan, { index: i + 1, count }), repetitions),
      ),
    );
    out.push([count, longest]);
  }
  return out;
}

/** The text of a dry run (pure). */
export function renderDryRun(
  plan: Plan,
  settings: { repetitions: number; shard?: { index: number; count: number } },
  layout: string,
  study?: { seconds: number },
): string {
  const lines: string[] = [];
  const cells = plan.blocks.reduce((n, b) => n + b.cells.length, 0);
  const shard = settings.shard ? ` (shard ${settings.shard.index}/${settings.shard.count})` : "";
  lines.push(
    `plan${shard}: ${plan.blocks.length} block(s), ${cells} cell(s), ${settings.repetitions} repetition(s) each; cores ${layout}`,
  );
  for (const b of plan.blocks) {
    lines.push(
      `  ${b.key} (${b.engine}, ${b.load.warmupS}s warm-up, ${b.load.durationS}s per repetition): ${b.cells.map((c) => c.id).join(", ")}`,
    );
  }
  for (const s of plan.skipped) {
    lines.push(`  skipped ${skippedName(s)}: ${s.reason}`);
  }
  const seconds = study?.seconds ?? estimateSeconds(plan, settings.repetitions);
  lines.push(`estimated wall time: ${formatDuration(seconds)}`);
  // A study runs on one runner: it has no shards.
  if (settings.shard === undefined && study === undefined) {
    for (const [count, seconds] of shardEstimates(plan, settings.repetitions)) {
      lines.push(`  over ${count} runners (--shard I/${count}): about ${formatDuration(seconds)} each`);
    }
  }
  return `${lines.join("\n")}\n`;
}

type Out = { write(text: string): unknown };

/** Plans the run asked for and prints it; starts nothing, writes nothing. */
export async function dryRun(
  req: RunRequest,
  out: Out = process.stdout,
  builtinDirs: Pick<ManifestDirs, "builtinProxiesDir" | "builtinScenariosDir"> = {},
): Promise<void> {
  const resolved = resolveSettings(req, coreCount()).settings;
  const full = await planRun(resolved, builtinDirs);
  const plan = shardPlan(full, resolved.shard);
  // --repetitions auto: the rounds planned as the run would (the estimate takes the last look's)
  const rounds = req.autoRounds
    ? planVariantRounds(full, resolved.variants ?? [], req.budgetMinutes, resolved.shard?.count ?? 1)
    : undefined;
  const settings = rounds ? withRoundsPlan(resolved, rounds) : resolved;
  await checkRunInputs(plan, req.out === undefined ? undefined : path.resolve(req.out));
  out.write(renderDryRun(plan, settings, formatCpuLayout(settings.cpus)));
}

/** `run --study NAME --dry-run`: the study's plan and how long it will take. */
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

/** `run --find-max-rate --dry-run`: the searches, and how long they take at most. */
export async function dryRunMaxRate(req: FindMaxRatesRequest, out: Out = process.stdout): Promise<void> {
  const dirs = {
    ...(req.proxiesDirs?.length ? { proxiesDirs: req.proxiesDirs } : {}),
    ...(req.scenariosDirs?.length ? { scenariosDirs: req.scenariosDirs } : {}),
  };
  for (const scenario of req.scenarios) {
    for (const proxy of req.proxies) await resolveSearch({ proxy, scenario, dirs });
  }
  const searches = req.proxies.length * req.scenarios.length;
  const steps = DEFAULT_MAX_RATE_OPTIONS.maxSteps;
  const step = (req.durationS ?? DEFAULT_STEP_DURATION_S) + (req.warmupS ?? 0);
  const most = searches * steps * step;
  out.write(
    `find-max-rate: ${searches} search(es) (${req.proxies.join(", ")} x ${req.scenarios.join(", ")}), ` +
      `each at most ${steps} steps of ${step}s\n` +
      `estimated wall time: at most ${formatDuration(most)} (${formatDuration(2 * most)} if every step is measured again)\n`,
  );
}
