import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { parseManifest } from "../../../manifests/load.js";
import { UserError } from "../../../util/errors.js";
import { findExecutable, PROJECT_ROOT } from "../../../util/paths.js";
import type { RunRequest } from "../../../runner/settings.js";
import { imageRef } from "../../../runner/specs.js";
import { findStudy } from "../load.js";
import type { CoprocessorChoice } from "./options.js";

/**
 * The extensibility study's coprocessors: `coprocessors/<name>/coprocessor.yml`, one folder per
 * language, each speaking Apollo Router's coprocessor protocol (coprocessors/README.md) with its
 * Dockerfile beside it. `native` says how it starts here; without it, the coprocessor is image
 * only and its rows are skipped in a native run. `image` says how its image
 * (`proxybench/coprocessor-<name>:<tag>`, built by action/docker-bake.hcl) starts under
 * `--runtime docker`: its args and env, with `{{sidecarPort}}` where it must listen.
 */

const COPROCESSORS_DIR = path.join(PROJECT_ROOT, "coprocessors");

const CoprocessorManifest = z
  .object({
    name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
    description: z.string().min(1),
    native: z
      .object({
        binary: z.string().min(1),
        /** `{{dir}}` is this folder, `{{sidecarPort}}` where it must listen. */
        args: z.array(z.string()).default([]),
        env: z.record(z.string(), z.string()).default({}),
        version: z
          .object({ args: z.array(z.string()), pattern: z.string() })
          .strict()
          .optional(),
      })
      .strict()
      .optional(),
    image: z
      .object({
        args: z.array(z.string()).default([]),
        env: z.record(z.string(), z.string()).default({}),
      })
      .strict()
      .optional(),
  })
  .strict();
type CoprocessorManifest = z.infer<typeof CoprocessorManifest>;

export interface LoadedCoprocessor {
  manifest: CoprocessorManifest;
  dir: string;
}

/** Reads `coprocessors/<name>/coprocessor.yml`; an unknown name or a bad file is a UserError naming it. */
export async function loadCoprocessor(name: string, root = COPROCESSORS_DIR): Promise<LoadedCoprocessor> {
  const dir = path.join(root, name);
  const file = path.join(dir, "coprocessor.yml");
  const text = await readFile(file, "utf8").catch(() => {
    throw new UserError(`coprocessor '${name}': ${file} not found`);
  });
  const { manifest } = parseManifest(CoprocessorManifest, text, file);
  if (manifest.name !== name)
    throw new UserError(`${file}: name: '${manifest.name}' differs from its folder '${name}'`);
  return { manifest, dir };
}

/** Where a coprocessor runs from here: its binary, or why it cannot run natively. */
export async function coprocessorBinary(
  c: LoadedCoprocessor,
): Promise<{ path: string } | { reason: string }> {
  const native = c.manifest.native;
  if (!native) return { reason: "image only: no native start here" };
  const found = await findExecutable(native.binary);
  if (!found) return { reason: `'${native.binary}' not found (fix: npm run setup -- --study extensibility)` };
  return { path: found };
}

/** `proxybench/coprocessor-<name>:<tag>`: the image of a coprocessor, named like a proxy's (pure). */
export function coprocessorImage(name: string, tag?: string, env: NodeJS.ProcessEnv = process.env): string {
  return imageRef(`coprocessor-${name}`, tag, env);
}

/** How the coprocessors run (`--runtime`, `--image-tag`), and where they are (tests; default coprocessors/). */
type CoprocessorRuntime = Pick<RunRequest, "runtime" | "imageTag"> & { root?: string };

/**
 * The study's coprocessors as the planner sees them: under `--runtime docker` each one with an
 * `image` section runs from its image; otherwise from its native binary, or with the reason
 * it cannot run here.
 */
export async function coprocessorChoices(
  names: readonly string[],
  where: CoprocessorRuntime = {},
): Promise<CoprocessorChoice[]> {
  const out: CoprocessorChoice[] = [];
  for (const name of names) {
    const c = await loadCoprocessor(name, where.root);
    const common = {
      name,
      dir: c.dir,
      args: c.manifest.native?.args ?? [],
      env: c.manifest.native?.env ?? {},
    };
    const image = c.manifest.image;
    if (where.runtime === "docker" && image) {
      out.push({ ...common, image: { ref: coprocessorImage(name, where.imageTag), ...image } });
      continue;
    }
    const found = await coprocessorBinary(c);
    out.push({ ...common, ...("path" in found ? { binary: found.path } : { unavailable: found.reason }) });
  }
  return out;
}

/**
 * The folder each coprocessor image a study needs is built from (`proxybench images --study`):
 * the extensibility study's coprocessors that run from an image under `--runtime docker`, by
 * name; none for another study.
 */
export async function coprocessorImageContexts(
  studyName: string,
  dirs: { studiesDir?: string; coprocessorsDir?: string } = {},
): Promise<Record<string, string>> {
  const study = await findStudy(studyName, dirs.studiesDir);
  const contexts: Record<string, string> = {};
  for (const name of study.manifest.extensibility?.coprocessors ?? []) {
    const c = await loadCoprocessor(name, dirs.coprocessorsDir);
    if (c.manifest.image) contexts[name] = c.dir;
  }
  return contexts;
}
