import { readFile } from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import { parseManifest } from "../../manifests/load.js";
import { UserError } from "../../util/errors.js";
import { findExecutable, PROJECT_ROOT } from "../../util/paths.js";

/**
 * The extensibility study's coprocessors: `coprocessors/<name>/coprocessor.yml`, one folder per
 * language, each speaking Apollo Router's coprocessor protocol (coprocessors/README.md) with its
 * Dockerfile beside it. `native` says how it starts here; without it, the coprocessor is image
 * only and its rows are skipped in a native run.
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
  const manifest = parseManifest(CoprocessorManifest, text, file);
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
