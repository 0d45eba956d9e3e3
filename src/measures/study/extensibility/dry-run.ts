import { existsSync } from "node:fs";
import type { Plan, PlannedCell } from "../../../runner/plan.js";
import type { RunRequest } from "../../../runner/settings.js";
import { imageRef } from "../../../runner/specs.js";
import { pickDefined } from "../../../util/objects.js";
import type { StudyOverrides } from "../run.js";
import type { StudyManifest } from "../schema.js";
import { coprocessorChoices } from "./coprocessors.js";
import { isGatewayTest, planOptions, type CoprocessorChoice } from "./options.js";

/**
 * What `proxybench study extensibility --dry-run` shows beyond the plan's blocks: each
 * test's rows on each gateway, planned or skipped with the reason, and under `--runtime docker`
 * the images the run starts (the gateways' and the coprocessors'), with the command that builds
 * them.
 */

export interface RowsContext extends Pick<RunRequest, "runtime" | "imageTag"> {
  /** Whether a kind's required file (a dynamic module) is installed. */
  fileExists: (file: string) => boolean;
  /** The variables a test may require (Apollo Router's licence). */
  env: Readonly<Record<string, string | undefined>>;
}

/** The options of a cell's gateway for its test; none when the test is not the gateway's (pure). */
function cellOptions(cell: PlannedCell, coprocessors: readonly CoprocessorChoice[], ctx: RowsContext) {
  const test = cell.scenario.manifest.name;
  if (!isGatewayTest(cell.proxy.manifest, test)) return undefined;
  return planOptions(cell.proxy, test, coprocessors, ctx.fileExists, ctx.env);
}

/**
 * The study's plan, with the coprocessors it finds here: each test on each gateway with every
 * option side by side (a variant per option, and the baseline), so a cell's time counts once per
 * variant (`timed`); then its rows.
 */
export async function extensibilityPlan(
  study: StudyManifest,
  plan: Plan,
  overrides: StudyOverrides,
): Promise<{ shown: Plan; timed: Plan; rows: string }> {
  const where = pickDefined(overrides, ["runtime", "imageTag"]);
  const coprocessors = await coprocessorChoices(study.extensibility?.coprocessors ?? [], where);
  const ctx: RowsContext = { ...where, fileExists: existsSync, env: process.env };
  const variantCount = (cell: PlannedCell) => {
    const rows = cellOptions(cell, coprocessors, ctx);
    return rows ? 1 + rows.options.length : 0;
  };
  const perVariant = plan.blocks
    .map((b) => ({ ...b, cells: b.cells.flatMap((c) => Array<PlannedCell>(variantCount(c)).fill(c)) }))
    .filter((b) => b.cells.length > 0);
  return {
    shown: { ...plan, blocks: perVariant.map((b) => ({ ...b, cells: [...new Set(b.cells)] })) },
    timed: { ...plan, blocks: perVariant },
    rows:
      "each cell: its gateway without extension and with each of its options, side by side\n" +
      renderExtensibilityRows(plan, coprocessors, ctx),
  };
}

/** The rows of every test on every gateway, and the images they need under docker (pure). */
export function renderExtensibilityRows(
  plan: Plan,
  coprocessors: readonly CoprocessorChoice[],
  ctx: RowsContext,
): string {
  const lines = ["rows:"];
  const gateways = new Set<string>();
  const used = new Set<string>();
  const seen = new Set<string>();
  for (const cell of plan.blocks.flatMap((b) => b.cells)) {
    const [test, gateway] = [cell.scenario.manifest.name, cell.proxy.manifest.name];
    const rows = seen.has(`${test} ${gateway}`) ? undefined : cellOptions(cell, coprocessors, ctx);
    seen.add(`${test} ${gateway}`);
    if (!rows) continue;
    gateways.add(gateway);
    lines.push(`  ${test} · ${gateway}: ${["baseline", ...rows.options.map((o) => o.name)].join(", ")}`);
    for (const [reason, options] of byReason(rows.skipped))
      lines.push(`    skipped ${options.join(", ")}: ${reason}`);
    for (const o of rows.options) if (o.coprocessor?.image) used.add(o.coprocessor.name);
  }
  if (ctx.runtime === "docker")
    lines.push(...imagesText([...gateways], [...used], coprocessors, ctx.imageTag));
  return `${lines.join("\n")}\n`;
}

/** The skipped options grouped by their reason, in order (pure). */
function byReason(skipped: ReadonlyArray<{ option: string; reason: string }>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const s of skipped) out.set(s.reason, [...(out.get(s.reason) ?? []), s.option]);
  return out;
}

/** The images a docker run starts, and the bake command that builds them (pure). */
function imagesText(
  gateways: string[],
  used: string[],
  coprocessors: readonly CoprocessorChoice[],
  tag: string | undefined,
): string[] {
  const images = coprocessors.flatMap((c) => (c.image && used.includes(c.name) ? [c.image] : []));
  const refs = [...gateways.map((g) => imageRef(g, tag)), ...images.map((i) => i.ref)];
  const names = coprocessors.filter((c) => used.includes(c.name)).map((c) => c.name);
  const effectiveTag = imageRef("", tag).split(":")[1];
  return [
    `images: ${refs.join(", ")}`,
    `  build them: PROXIES=${gateways.join(",")} COPROCESSORS=${names.join(",")} IMAGE_TAG=${effectiveTag}` +
      ` docker buildx bake -f action/docker-bake.hcl --load --set '*.cache-from=' --set '*.cache-to='`,
  ];
}
