import { execFile } from "node:child_process";
import { readdir, stat } from "node:fs/promises";
import path from "node:path";
import { promisify } from "node:util";

/**
 * Global setup of the processes and load projects: tests that start `bin/proxybench.js` need dist/
 * current. `npm test` builds before vitest, so this finds dist newer than every source and does
 * nothing; a single file run after an edit (`npx vitest run test/load/e2e/cli.test.ts`) builds once
 * here instead of in each test file.
 */
const ROOT = path.resolve(import.meta.dirname, "../..");
const SOURCES = ["src", "bench", "tsconfig.json", "tsconfig.build.json"];
const BUILT = path.join(ROOT, "dist", "src", "cli.js");

async function newestMtime(entry: string): Promise<number> {
  const info = await stat(entry).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.mtimeMs;
  const names = await readdir(entry);
  const times = await Promise.all(names.map((name) => newestMtime(path.join(entry, name))));
  return Math.max(info.mtimeMs, ...times);
}

export default async function buildOnce(): Promise<void> {
  const built = (await stat(BUILT).catch(() => undefined))?.mtimeMs ?? 0;
  const sources = await Promise.all(SOURCES.map((s) => newestMtime(path.join(ROOT, s))));
  if (built > Math.max(...sources)) return;
  // tsc emits even when a file has a type error; the error is printed for whoever runs the tests.
  await promisify(execFile)(
    process.execPath,
    ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"],
    {
      cwd: ROOT,
    },
  ).catch((error: Error & { stdout?: string }) => process.stderr.write(error.stdout ?? error.message));
}
