import path from "node:path";
import { UserError } from "../util/errors.js";
import { isDirectory } from "../util/paths.js";
import { loadManifests, type ManifestDirs } from "./load.js";

/**
 * The folder each proxy's image is built from (`proxybench images`, the run action's bake
 * steps): the proxies-dir's folder of that name when it has one, else the built-in one; the same
 * rule by which `proxybench run` reads the proxy's manifest, so the image built is the image of
 * the manifest run. A proxy without an image (direct, native-only ones) has no folder to build.
 */
export async function imageContexts(
  proxies: readonly string[],
  dirs: Pick<ManifestDirs, "proxiesDirs" | "builtinProxiesDir">,
): Promise<Record<string, string>> {
  // A folder the checkout does not have (a base before the pull request added it) adds nothing,
  // as for a variant's proxies folder in `run --variant`.
  const present: string[] = [];
  for (const dir of dirs.proxiesDirs ?? []) if (await isDirectory(dir)) present.push(dir);
  const set = await loadManifests({ ...dirs, proxiesDirs: present });
  const unknown = proxies.filter((name) => !set.proxies.has(name));
  if (unknown.length > 0) {
    throw new UserError(
      `--proxies: unknown proxy ${unknown.map((n) => `'${n}'`).join(", ")} (known: ${[...set.proxies.keys()].sort().join(", ")})`,
    );
  }
  const contexts: Record<string, string> = {};
  for (const name of proxies) {
    const loaded = set.proxies.get(name)!;
    if (loaded.manifest.kind === "direct" || loaded.manifest.image === undefined) continue;
    contexts[name] = path.dirname(loaded.file);
  }
  return contexts;
}
