import { execOutput } from "../environment/exec.js";
import type { LoadedProxy } from "../manifests/load.js";
import { renderArgs, renderEnv } from "../manifests/template.js";
import { requiredSection, templateVars, type ProxyContext } from "../runner/specs.js";
import type { ProcessSpec } from "../runner/runtime.js";
import { UserError } from "../util/errors.js";
import { findExecutable } from "../util/paths.js";

/** Valgrind's callgrind and its remote control, found on this machine. */
export interface ValgrindTools {
  valgrind: string;
  control: string;
  version: string;
}

export async function findValgrind(): Promise<ValgrindTools> {
  const valgrind = await findExecutable("valgrind");
  const control = await findExecutable("callgrind_control");
  if (!valgrind || !control) {
    throw new UserError(
      "--measure instructions needs valgrind and callgrind_control: run 'npm run setup' (apt-get install valgrind)",
      1,
    );
  }
  const { output } = await execOutput(valgrind, ["--version"]);
  return { valgrind, control, version: output.trim().replace(/^valgrind-/, "") };
}

export const IMAGE_ONLY_REASON = "image only: a container cannot run under Valgrind here";

/** Why a proxy cannot be counted under Valgrind, or undefined when it can. Pure. */
export function instructionsSkipReason(proxy: LoadedProxy): string | undefined {
  const m = proxy.manifest;
  if (m.kind === "direct") return "no proxy process to count (direct goes straight to the upstream)";
  if (!m.native) return IMAGE_ONLY_REASON;
  if (m.instructions?.unsupported !== undefined)
    return `cannot run under Valgrind: ${m.instructions.unsupported}`;
  if (!m.instructions) return `${proxy.file}: no 'instructions' section (how to run it as one process)`;
  return undefined;
}

/**
 * The proxy's process under callgrind: its `instructions` args and env (else the native ones),
 * rendered with the context, behind valgrind with instrumentation off until switched on.
 */
export function buildCallgrindSpec(
  proxy: LoadedProxy,
  ctx: ProxyContext,
  binaryPath: string,
  tools: ValgrindTools,
  outFile: string,
): ProcessSpec {
  const native = requiredSection(proxy, "native");
  const section = proxy.manifest.instructions;
  const vars = templateVars(proxy, ctx);
  const field = section?.args ? "instructions.args" : "native.args";
  const args = renderArgs(section?.args ?? native.args, vars, `${proxy.file}: ${field}`);
  const env = renderEnv(section?.env ?? native.env, vars, `${proxy.file}: env`);
  return {
    name: `proxy:${proxy.manifest.name}`,
    command: tools.valgrind,
    args: [...callgrindArgs(outFile), binaryPath, ...args],
    env,
    cwd: ctx.workdir,
    cpus: ctx.cpus,
    logFile: ctx.logFile,
  };
}

/** Valgrind's flags: callgrind with the cache simulation, counting nothing until switched on. */
function callgrindArgs(outFile: string): string[] {
  return [
    "--tool=callgrind",
    "--instr-atstart=no",
    "--cache-sim=yes",
    "--trace-children=no",
    `--callgrind-out-file=${outFile}`,
  ];
}

/** `callgrind_control` on one process: `-i on`, `-i off`, `-d` (dump). */
export async function control(tools: ValgrindTools, pid: number, args: string[]): Promise<void> {
  const { code, output } = await execOutput(tools.control, [...args, String(pid)], { timeoutMs: 30_000 });
  if (code !== 0 || !/OK\./.test(output)) {
    throw new Error(`callgrind_control ${args.join(" ")} ${pid} failed (exit ${code}): ${output.trim()}`);
  }
}
