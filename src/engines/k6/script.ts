import { access, mkdtemp, readdir, readFile, rm, symlink, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { PROJECT_ROOT } from "../../util/paths.js";

/**
 * The scenario library (`scenarios/lib`) wherever a scenario lives. A built-in script imports it
 * relatively (`../lib/proxybench.js`, a study's `../../../../scenarios/lib/proxybench.js`); a
 * copy of the script in a folder of the user's has no `lib` beside it. Such an import, missing
 * where the script is and naming a file of the library, is the library's file: k6 runs a staged
 * copy of the script whose import points at it, beside links to the rest of the scenario's folder.
 */

const SCENARIO_LIBRARY = path.join(PROJECT_ROOT, "scenarios", "lib");

const IMPORT = /(\bimport\s+(?:[^'"]*?\sfrom\s+)?)(["'])(\.{1,2}\/[^"']+)\2/g;

/** Relative imports of a k6 script (`import ... from "./x.js"` or `"../lib/x.js"`). Pure. */
export function relativeImports(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[3]!);
}

/** The library's file that an import such as `../lib/proxybench.js` names, if it has one. */
async function libraryFile(spec: string, library: string): Promise<string | undefined> {
  const m = /(?:^|\/)lib\/([^/]+)$/.exec(spec);
  if (!m) return undefined;
  const file = path.join(library, m[1]!);
  return (await exists(file)) ? file : undefined;
}

/** How the relative imports of a script resolve. */
export async function resolveImports(script: string, source: string, library = SCENARIO_LIBRARY) {
  const out = {
    /** Imports that resolve nowhere: the spec and the file it names. */
    missing: [] as Array<{ spec: string; target: string }>,
    /** Imports missing beside the script that name a file of the library: spec -> that file. */
    library: new Map<string, string>(),
  };
  for (const spec of relativeImports(source)) {
    const target = path.resolve(path.dirname(script), spec);
    if (await exists(target)) continue;
    const file = await libraryFile(spec, library);
    if (file === undefined) out.missing.push({ spec, target });
    else out.library.set(spec, file);
  }
  return out;
}

/** The script with each import of `library` pointing at its file (a file: URL). Pure. */
function withLibraryImports(source: string, library: ReadonlyMap<string, string>): string {
  return source.replace(IMPORT, (whole, head: string, quote: string, spec: string) => {
    const file = library.get(spec);
    return file === undefined ? whole : `${head}${quote}${pathToFileURL(file).href}${quote}`;
  });
}

/**
 * The script k6 runs, and what to remove once it has: the script itself when its imports
 * resolve where it is; else a staged copy that imports the library from proxybench's own
 * folder, in a temporary folder holding links to every other file of the script's folder (its
 * own modules and the files it opens).
 */
export async function stageScript(script: string, library = SCENARIO_LIBRARY) {
  const source = await readFile(script, "utf8");
  const imports = await resolveImports(script, source, library);
  if (imports.library.size === 0) return { path: script, remove: () => Promise.resolve() };
  const dir = await mkdtemp(path.join(os.tmpdir(), "proxybench-k6-"));
  const folder = path.dirname(script);
  for (const entry of await readdir(folder)) {
    if (entry !== path.basename(script)) await symlink(path.join(folder, entry), path.join(dir, entry));
  }
  const staged = path.join(dir, path.basename(script));
  await writeFile(staged, withLibraryImports(source, imports.library));
  return { path: staged, remove: () => rm(dir, { recursive: true, force: true }) };
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
