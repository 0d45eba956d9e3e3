/**
 * The call path of `proxybench run` to results.json, counted (`npm run bench:call-path`). Prints
 * figures; asserts nothing.
 *
 * Runs `proxybench run` in this process (nginx, passthrough, 2 repetitions of 1 s, the CLI's own
 * entry point) and records the stack, async frames included, at each of the run's effects: every
 * save of results.json and every process it starts (the proxy, the upstream, the load generator,
 * the tools it asks for their versions). The path is the union of those stacks, each read from
 * the CLI down: the source files it enters, in order of first entry, and its moves between
 * folders (a step from a frame in one folder to one in another; a step taken again on a later
 * stack counted once). A save's stack ends in the file that saves (runner/results-file.ts).
 *
 *   npm run bench:call-path
 *
 * Bounded: about 10 seconds; needs nginx and k6 (scripts/setup.sh).
 */
import childProcess from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { syncBuiltinESMExports } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { main } from "../src/cli.js";
import { AtomicFile } from "../src/runner/results-file.js";

const DIST_SRC = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../src");
/** Where AtomicFile.save is (its frame is this script's while the save is recorded). */
const SAVER = `${pathToFileURL(path.join(DIST_SRC, "runner/results-file.js")).href}:1:1`;

/** The source files of a stack's frames, from the outermost call in; a run of frames in one file once. */
function sourceFiles(stack: string): string[] {
  const files: string[] = [];
  const frames = [...stack.matchAll(/file:\/\/([^:)]+):\d+:\d+\)?$/gm)].map((m) => m[1]!);
  for (const file of frames.reverse()) {
    if (!file.startsWith(DIST_SRC)) continue;
    const source = path.relative(DIST_SRC, file).replace(/\.js$/, ".ts");
    if (files.at(-1) !== source) files.push(source);
  }
  return files;
}

function folderOf(file: string): string {
  return path.dirname(file);
}

const PROCESS_STARTS = ["spawn", "spawnSync", "execFile"] as const;

/** Every stack at a save of results.json or a process started, while `proxybench run` runs. */
async function recordStacks(out: string): Promise<string[]> {
  const stacks: string[] = [];
  const record = (callee = "") => stacks.push(`${callee}${new Error().stack ?? ""}`);
  Error.stackTraceLimit = Infinity;
  const { prototype } = AtomicFile;
  const save = Object.getOwnPropertyDescriptor(prototype, "save")!;
  Object.defineProperty(prototype, "save", {
    ...save,
    value(this: AtomicFile<unknown>, ...args: unknown[]): unknown {
      if (path.basename(this.file) === "results.json") record(`at save (${SAVER})\n`);
      return Reflect.apply(save.value as (...a: unknown[]) => unknown, this, args);
    },
  });
  const starts = PROCESS_STARTS.map((name) => [name, childProcess[name]] as const);
  for (const [name, start] of starts) {
    Object.assign(childProcess, {
      [name]: (...args: unknown[]): unknown => (record(), Reflect.apply(start, childProcess, args)),
    });
  }
  syncBuiltinESMExports();
  try {
    const argv = ["node", "proxybench", "run", "-p", "nginx", "-s", "passthrough", "-r", "2", "-d", "1"];
    const code = await main([...argv, "-w", "0", "--out", out]);
    if (code !== 0) throw new Error(`proxybench run exited ${code}`);
    return stacks;
  } finally {
    Object.defineProperty(prototype, "save", save);
    for (const [name, start] of starts) Object.assign(childProcess, { [name]: start });
    syncBuiltinESMExports();
  }
}

const out = await mkdtemp(path.join(os.tmpdir(), "pb-call-path-"));
try {
  const stacks = await recordStacks(path.join(out, "run"));
  const files: string[] = [];
  const moves = new Set<string>();
  for (const stack of stacks) {
    const path_ = sourceFiles(stack);
    path_.forEach((file, i) => {
      if (!files.includes(file)) files.push(file);
      const from = path_[i - 1];
      if (from !== undefined && folderOf(from) !== folderOf(file)) moves.add(`${from} -> ${file}`);
    });
  }
  const folders = new Set(files.map(folderOf));
  process.stdout.write(`stacks recorded: ${stacks.length}\n`);
  process.stdout.write(`files entered: ${files.length}, in ${folders.size} folders\n`);
  for (const file of files) process.stdout.write(`  src/${file}\n`);
  process.stdout.write(`moves between folders: ${moves.size}\n`);
  for (const move of moves) process.stdout.write(`  ${move}\n`);
} finally {
  await rm(out, { recursive: true, force: true });
}
