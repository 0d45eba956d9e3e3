import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import path from "node:path";
import { parse as parseYaml } from "yaml";
import { PROJECT_ROOT } from "../../../src/util/paths.js";

/** report/action.yml as GitHub reads it. */
export interface ActionYml {
  inputs: Record<string, { default?: string; required?: boolean }>;
  outputs: Record<string, unknown>;
  runs: { using: string; main: string };
}
export const actionYml = parseYaml(
  readFileSync(path.join(PROJECT_ROOT, "report", "action.yml"), "utf8"),
) as ActionYml;

/** GitHub's name for an input's variable: INPUT_ + the name upper-cased, spaces to '_', hyphens kept. */
const inputVar = (name: string) => `INPUT_${name.replace(/ /g, "_").toUpperCase()}`;

/** What GitHub sets for every input: its default (expressions aside), then the `with:` values. */
function inputsEnv(withValues: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, spec] of Object.entries(actionYml.inputs)) {
    const value = spec.default ?? "";
    env[inputVar(name)] = value.includes("${{") ? "" : value;
  }
  for (const [name, value] of Object.entries(withValues)) env[inputVar(name)] = value;
  return env;
}

/** GITHUB_OUTPUT as written by @actions/core: `name<<DELIM\nvalue\nDELIM` blocks. */
function parseOutputs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const re = /^([^<\n]+)<<(\S+)\n([\s\S]*?)\n\2$/gm;
  for (const m of text.matchAll(re)) out[m[1]!] = m[3]!;
  return out;
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  outputs: Record<string, string>;
  summary: string;
}

export interface ActionContext {
  /** A scratch folder for the event, output and summary files. */
  dir: string;
  apiUrl: string;
  repository: string;
}

/** Runs report/dist/index.js the way the runner does for `uses: org/proxybench/report@v1`. */
export async function runReportAction(
  ctx: ActionContext,
  withValues: Record<string, string>,
  event: unknown,
  name: string,
): Promise<ActionRun> {
  const eventFile = path.join(ctx.dir, `${name}-event.json`);
  const outputFile = path.join(ctx.dir, `${name}-output`);
  const summaryFile = path.join(ctx.dir, `${name}-summary.md`);
  await writeFile(eventFile, JSON.stringify(event));
  await writeFile(outputFile, "");
  await writeFile(summaryFile, "");
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: ctx.dir,
    GITHUB_ACTIONS: "true",
    GITHUB_EVENT_NAME: "pull_request",
    GITHUB_EVENT_PATH: eventFile,
    GITHUB_REPOSITORY: ctx.repository,
    GITHUB_SHA: "0123456789abcdef0123456789abcdef01234567",
    GITHUB_API_URL: ctx.apiUrl,
    GITHUB_SERVER_URL: "https://github.test",
    GITHUB_RUN_ID: "4242",
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    RUNNER_TEMP: ctx.dir,
    ...inputsEnv(withValues),
  };
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, "report", actionYml.runs.main)], {
    cwd: PROJECT_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
  child.stderr.on("data", (c: Buffer) => (stdout += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return {
    code,
    stdout,
    outputs: parseOutputs(await readFile(outputFile, "utf8")),
    summary: await readFile(summaryFile, "utf8"),
  };
}
