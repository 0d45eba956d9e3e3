import path from "node:path";
import { loadManifests, type ManifestDirs } from "../manifests/load.js";
import type { Settings } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import {
  DEFAULT_ALPHA,
  DEFAULT_TARGET_PCT,
  PRIMARY_METRICS,
  testedSpecs,
  type CompareMetric,
} from "../stats/tested-metrics.js";
import { planLooks } from "../stats/sequential.js";
import { buildPlan, mergeVariantPlans, type Block, type Plan, type PlannedCell } from "./plan.js";
import { isDirectory } from "../util/paths.js";
import type { RunRequest } from "./settings.js";

/**
 * Variants (`--variant NAME=DIR`): the same matrix measured for several sets of manifests in
 * one run, side by side. DIR holds `proxies/` and/or `scenarios/`; what it lacks comes from the
 * built-ins and --proxies-dir/--scenarios-dir, which DIR's own folders override by name.
 */

export type Variant = NonNullable<Settings["variants"]>[number];

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * "head=../pr" -> { name: "head", dir: "/abs/pr" }; "head:pr-1=../pr" also sets the image tag
 * of the variant's proxies in a docker run (each variant's images told apart). The error names
 * the flag. Pure.
 */
export function parseVariant(text: string, cwd = process.cwd()): Variant {
  const eq = text.indexOf("=");
  const left = eq < 0 ? "" : text.slice(0, eq);
  const dir = eq < 0 ? "" : text.slice(eq + 1);
  const colon = left.indexOf(":");
  const name = colon < 0 ? left : left.slice(0, colon);
  const imageTag = colon < 0 ? undefined : left.slice(colon + 1);
  if (!NAME.test(name) || dir === "") {
    throw new UserError(
      `--variant: expected NAME=DIR or NAME:TAG=DIR (a name of letters, digits, '.', '_' or '-', then a folder), got '${text}'`,
    );
  }
  if (imageTag !== undefined && !isImageTag(imageTag)) {
    throw new UserError(
      `--variant ${name}: '${imageTag}' is not an image tag (letters, digits, '_', '.', '-'; at most 128)`,
    );
  }
  return { name, dir: path.resolve(cwd, dir), ...(imageTag !== undefined ? { imageTag } : {}) };
}

/** Docker's rule for an image tag: letters, digits, '_', '.', '-', at most 128 (pure). */
export function isImageTag(text: string): boolean {
  return /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/.test(text);
}

/**
 * Where every variant keeps its manifests when not in DIR/proxies and DIR/scenarios
 * (`--variant-proxies-dir bench/proxies`): a folder inside DIR, the same for each variant (a
 * PR's base and head checkouts). The error names the flag. Pure.
 */
export function withLayout(
  variants: readonly Variant[],
  layout: { proxiesDir?: string | undefined; scenariosDir?: string | undefined },
): Variant[] {
  const inside = (flag: string, rel: string | undefined) => {
    if (rel === undefined) return undefined;
    const norm = path.normalize(rel);
    if (rel === "" || path.isAbsolute(rel) || norm === ".." || norm.startsWith(`..${path.sep}`)) {
      throw new UserError(`${flag}: expected a folder inside each variant's DIR, got '${rel}'`);
    }
    return norm;
  };
  const proxies = inside("--variant-proxies-dir", layout.proxiesDir);
  const scenarios = inside("--variant-scenarios-dir", layout.scenariosDir);
  if (variants.length === 0 && (proxies ?? scenarios) !== undefined) {
    throw new UserError(
      `${proxies !== undefined ? "--variant-proxies-dir" : "--variant-scenarios-dir"} goes with --variant`,
    );
  }
  return variants.map((v) => ({
    ...v,
    ...(proxies !== undefined ? { proxiesDir: path.join(v.dir, proxies) } : {}),
    ...(scenarios !== undefined ? { scenariosDir: path.join(v.dir, scenarios) } : {}),
  }));
}

/** A variant's proxies and scenarios folders. */
function folders(v: Variant): { proxies: string; scenarios: string } {
  return {
    proxies: v.proxiesDir ?? path.join(v.dir, "proxies"),
    scenarios: v.scenariosDir ?? path.join(v.dir, "scenarios"),
  };
}

/** Checks names are distinct, at least two, and every folder holds proxies/ or scenarios/. */
export async function checkVariants(variants: readonly Variant[]): Promise<void> {
  if (variants.length === 1) {
    throw new UserError(`--variant: give two or more variants to compare (got only '${variants[0]?.name}')`);
  }
  const seen = new Set<string>();
  for (const v of variants) {
    if (seen.has(v.name)) throw new UserError(`--variant: the name '${v.name}' is given twice`);
    seen.add(v.name);
    if (!(await isDirectory(v.dir))) throw new UserError(`--variant ${v.name}=${v.dir}: not a directory`);
    const { proxies, scenarios } = folders(v);
    const found = await Promise.all([proxies, scenarios].map((dir) => isDirectory(dir)));
    if (!found.some(Boolean)) {
      const names = [proxies, scenarios].map((dir) => `${path.relative(v.dir, dir)}/`).join(" nor ");
      throw new UserError(`--variant ${v.name}=${v.dir}: holds neither ${names}`);
    }
  }
}

/** The manifest folders of one variant: its own proxies/ and scenarios/ last, so they win. */
export async function variantDirs(v: Variant | undefined, settings: Settings): Promise<ManifestDirs> {
  const dirs: ManifestDirs = {};
  for (const kind of ["proxies", "scenarios"] as const) {
    const own = v === undefined ? undefined : folders(v)[kind];
    const found = own !== undefined && (await isDirectory(own)) ? [own] : [];
    const all = [...(settings[`${kind}Dirs`] ?? []), ...found];
    if (all.length) dirs[`${kind}Dirs`] = all;
  }
  return dirs;
}

/** The plan of a run: one set of manifests, or every variant's merged block by block. */
export async function planRun(
  settings: Settings,
  builtinDirs: Pick<ManifestDirs, "builtinProxiesDir" | "builtinScenariosDir"> = {},
): Promise<Plan> {
  const planOf = async (v?: Variant) =>
    buildPlan(settings, await loadManifests({ ...builtinDirs, ...(await variantDirs(v, settings)) }));
  const variants = settings.variants ?? [];
  if (variants.length === 0) return planOf();
  await checkVariants(variants);
  const plans: Array<{ variant: string; plan: Plan }> = [];
  for (const v of variants) plans.push({ variant: v.name, plan: await planOf(v) });
  return mergeVariantPlans(plans);
}

/**
 * The two variants a comparison of this run takes by default (as `proxybench compare` picks
 * them): `base` and `head`, else the first two.
 */
export function comparedVariants(variants: readonly Variant[]): [string, string] | undefined {
  const names = variants.map((v) => v.name);
  if (names.length < 2) return undefined;
  const base = names.includes("base") ? "base" : names[0]!;
  const head = names.includes("head") && base !== "head" ? "head" : names.find((n) => n !== base)!;
  return [base, head];
}

/** What a round costs beyond its load, per repetition: the engine's start and the checks around it (measured: 1.2-1.6 s). */
const REPETITION_OVERHEAD_S = 1.5;
/** What a cell costs once: its proxy started, probed and stopped. */
const CELL_OVERHEAD_S = 3;

/** Tested metrics of a variant run's comparison: every base cell with a head twin, times its tested metrics. */
export function familyTests(
  plan: Plan,
  variants: readonly Variant[],
  tested: readonly CompareMetric[] = PRIMARY_METRICS,
): number {
  const pair = comparedVariants(variants);
  if (pair === undefined) return 0;
  const key = (c: Plan["blocks"][number]["cells"][number]) =>
    JSON.stringify([c.scenario.manifest.name, c.load.label, c.proxy.manifest.name, c.engine, c.tls ?? ""]);
  const cells = plan.blocks.flatMap((b) => b.cells);
  const heads = new Set(cells.filter((c) => c.variant === pair[1]).map(key));
  return cells
    .filter((c) => c.variant === pair[0] && heads.has(key(c)))
    .reduce((sum, c) => sum + testedSpecs(c.load, tested).length, 0);
}

/**
 * Seconds of one round of the whole plan, and of everything that is not rounds (estimates); with
 * --proxy-lifetime round a proxy's round holds its warm-up too (`direct` has no process to start).
 */
export function roundSeconds(
  plan: Plan,
  lifetime: Settings["proxyLifetime"] = "block",
): { perRound: number; fixed: number } {
  const cells = plan.blocks.flatMap((b) => b.cells.map((c) => ({ c, b })));
  const warmup = (c: PlannedCell, b: Block) =>
    lifetime === "round" && c.proxy.manifest.kind !== "direct" ? b.load.warmupS : 0;
  return {
    perRound: cells.reduce((s, { c, b }) => s + warmup(c, b) + b.load.durationS + REPETITION_OVERHEAD_S, 0),
    fixed: cells.reduce((s, { b }) => s + b.load.warmupS + CELL_OVERHEAD_S, 0),
  };
}

/**
 * `--repetitions auto`: the rounds of a variant run, planned before it starts (src/stats/sequential.ts).
 * `full`: the whole matrix, whose family compare tests; split over `shards` machines, each pays
 * its even share of the matrix's time out of the budget, so every shard plans the same looks.
 */
export function planVariantRounds(
  full: Plan,
  variants: readonly Variant[],
  {
    budgetMinutes,
    targetPct = DEFAULT_TARGET_PCT,
    shards = 1,
    lifetime,
  }: Pick<RunRequest, "budgetMinutes" | "targetPct"> & {
    shards?: number;
    lifetime?: Settings["proxyLifetime"];
  } = {},
  tested: readonly CompareMetric[] = PRIMARY_METRICS,
): NonNullable<Settings["sequential"]> {
  const tests = familyTests(full, variants, tested);
  if (tests === 0) {
    throw new UserError(
      "--repetitions auto: no cell runs in both compared variants, so there is nothing to size the rounds for",
    );
  }
  const { perRound, fixed } = roundSeconds(full, lifetime);
  const maxRounds =
    budgetMinutes === undefined
      ? undefined
      : Math.max(1, Math.floor((budgetMinutes * 60 - fixed / shards) / (perRound / shards)));
  const plan = planLooks({ alpha: DEFAULT_ALPHA, tests, ...(maxRounds !== undefined ? { maxRounds } : {}) });
  return { ...plan, ...(budgetMinutes !== undefined ? { budgetMinutes } : {}), targetPct };
}
