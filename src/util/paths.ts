import { access, constants, stat } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The package root (where package.json, proxies/ and scenarios/ are). Works from src/ under
 * vitest and from dist/src/ when built: both are found by walking up to package.json.
 */
export const PROJECT_ROOT: string = (() => {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (path.basename(dir) === "src" || path.basename(dir) === "dist") {
      const parent = path.dirname(dir);
      if (path.basename(parent) !== "dist") return parent;
    }
    dir = path.dirname(dir);
  }
  throw new Error("cannot locate the proxybench package root");
})();

/** Tools that scripts/setup.sh builds for the project (k6, actionlint, the upstream). */
export const TOOLS_BIN = path.join(PROJECT_ROOT, ".tools", "bin");

const SYSTEM_SBIN = ["/usr/local/sbin", "/usr/sbin", "/sbin"];

/**
 * Finds an executable: an absolute or relative path as given, else in the project's .tools/bin
 * (the versions scripts/setup.sh pins: k6, the upstream), then on PATH, then in the sbin
 * folders (nginx and haproxy live there on Debian).
 */
export async function findExecutable(name: string): Promise<string | undefined> {
  const dirs = [TOOLS_BIN, ...(process.env.PATH ?? "").split(path.delimiter).filter(Boolean), ...SYSTEM_SBIN];
  return firstExecutable(name, dirs);
}

/** `name` from `cwd` when it holds a slash, else the first executable file of that name in `dirs`. */
export async function firstExecutable(name: string, dirs: string[], cwd = "."): Promise<string | undefined> {
  const candidates = name.includes("/") ? [path.resolve(cwd, name)] : dirs.map((dir) => path.join(dir, name));
  for (const file of candidates) {
    const executable = access(file, constants.X_OK).then(async () => (await stat(file)).isFile());
    if (await executable.catch(() => false)) return file;
  }
  return undefined;
}

/** The size of a file in bytes; 0 when it does not exist. */
export async function fileSize(file: string): Promise<number> {
  return (await stat(file).catch(() => undefined))?.size ?? 0;
}

/** Whether a path is a folder (false when it does not exist). */
export async function isDirectory(p: string): Promise<boolean> {
  return (await stat(p).catch(() => undefined))?.isDirectory() ?? false;
}
