import { stat } from "node:fs/promises";
import path from "node:path";
import { loadManifests, type ManifestDirs } from "../manifests/load.js";
import type { Settings } from "../results/schema.js";
import { UserError } from "../util/errors.js";
import { buildPlan, mergeVariantPlans, type Plan } from "./plan.js";

/**
 * Variants (`--variant NAME=DIR`): the same matrix measured for several sets of manifests in
 * one run, side by side. DIR holds `proxies/` and/or `scenarios/`; what it lacks comes from the
 * built-ins and --proxies-dir/--scenarios-dir, which DIR's own folders override by name.
 */

export type Variant = NonNullable<Settings["variants"]>[number];

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/** Docker's tag grammar. */
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;

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
  if (imageTag !== undefined && !TAG.test(imageTag)) {
    throw new UserError(
      `--variant ${name}: '${imageTag}' is not an image tag (letters, digits, '_', '.', '-'; at most 128)`,
    );
  }
  return { name, dir: path.resolve(cwd, dir), ...(imageTag !== undefined ? { imageTag } : {}) };
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
    const info = await stat(v.dir).catch(() => undefined);
    if (!info?.isDirectory()) throw new UserError(`--variant ${v.name}=${v.dir}: not a directory`);
    const found = await Promise.all(["proxies", "scenarios"].map((sub) => isDir(path.join(v.dir, sub))));
    if (!found.some(Boolean)) {
      throw new UserError(`--variant ${v.name}=${v.dir}: holds neither proxies/ nor scenarios/`);
    }
  }
}

async function isDir(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}

/** The manifest folders of one variant: its own proxies/ and scenarios/ last, so they win. */
export async function variantDirs(v: Variant | undefined, settings: Settings): Promise<ManifestDirs> {
  const proxiesDirs = [...(settings.proxiesDirs ?? [])];
  const scenariosDirs = [...(settings.scenariosDirs ?? [])];
  if (v && (await isDir(path.join(v.dir, "proxies")))) proxiesDirs.push(path.join(v.dir, "proxies"));
  if (v && (await isDir(path.join(v.dir, "scenarios")))) scenariosDirs.push(path.join(v.dir, "scenarios"));
  return {
    ...(proxiesDirs.length ? { proxiesDirs } : {}),
    ...(scenariosDirs.length ? { scenariosDirs } : {}),
  };
}

/** The plan of a run: one set of manifests, or every variant's merged block by block. */
export async function planRun(
  settings: Settings,
  builtinDirs: Pick<ManifestDirs, "builtinProxiesDir" | "builtinScenariosDir"> = {},
): Promise<Plan> {
  const variants = settings.variants ?? [];
  if (variants.length === 0) {
    return buildPlan(
      settings,
      await loadManifests({ ...builtinDirs, ...(await variantDirs(undefined, settings)) }),
    );
  }
  await checkVariants(variants);
  const plans: Array<{ variant: string; plan: Plan }> = [];
  for (const v of variants) {
    const manifests = await loadManifests({ ...builtinDirs, ...(await variantDirs(v, settings)) });
    plans.push({ variant: v.name, plan: buildPlan(settings, manifests) });
  }
  return mergeVariantPlans(plans);
}
