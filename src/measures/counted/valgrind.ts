import { execOutput } from "../../environment/exec.js";
import type { LoadedProxy } from "../../manifests/load.js";
import { renderArgs, renderEnv } from "../../manifests/template.js";
import type { RuntimeKind } from "../../runner/runtime-factory.js";
import {
  buildDockerProxySpec,
  requiredSection,
  templateVars,
  type ProxyContext,
  type RenderedConfig,
} from "../../runner/specs.js";
import type { ProcessSpec, RunningProcess } from "../../runner/runtime.js";
import { runCommand } from "../../util/processes.js";
import { UserError } from "../../util/errors.js";
import { findExecutable } from "../../util/paths.js";

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
      "proxybench count needs valgrind and callgrind_control: run 'npm run setup' (apt-get install valgrind)",
      1,
    );
  }
  const { output } = await execOutput(valgrind, ["--version"]);
  return { valgrind, control, version: output.trim().replace(/^valgrind-/, "") };
}

export const IMAGE_ONLY_REASON = "image only: count it in its image with --runtime docker";

/** Why a proxy cannot be counted under Valgrind in this runtime, or undefined when it can. Pure. */
export function instructionsSkipReason(
  proxy: LoadedProxy,
  runtime: RuntimeKind = "native",
): string | undefined {
  const m = proxy.manifest;
  if (m.kind === "direct") return "no proxy process to count (direct goes straight to the upstream)";
  if (runtime === "native" && !m.native) return IMAGE_ONLY_REASON;
  if (runtime === "docker" && !m.image) return "no image section: count it with --runtime native";
  if (m.instructions?.unsupported !== undefined)
    return `cannot run under Valgrind: ${m.instructions.unsupported}`;
  if (!m.instructions) return `${proxy.file}: no 'instructions' section (how to run it as one process)`;
  if (runtime === "docker" && countedProgram(proxy) === undefined) {
    return `${proxy.file}: instructions.program: the program to run in the image (no native.binary to default to)`;
  }
  return undefined;
}

/** The program Valgrind runs in the proxy's image: `instructions.program`, else `native.binary`. */
function countedProgram(proxy: LoadedProxy): string | undefined {
  return proxy.manifest.instructions?.program ?? proxy.manifest.native?.binary;
}

/** The image a proxy is counted in: its image with Valgrind added (action/counted.Dockerfile). */
export function countedImageRef(image: string): string {
  return `${image}-valgrind`;
}

/**
 * Valgrind's version in a counted image (`docker run --rm --entrypoint valgrind IMAGE --version`),
 * or why the image cannot be counted in, with the command that builds it.
 */
export async function valgrindInImage(
  docker: string,
  image: string,
  proxy: string,
): Promise<{ version: string } | { reason: string }> {
  const offline = ["--rm", "--pull", "never", "--network", "none"];
  const args = ["run", ...offline, "--entrypoint", "valgrind", image, "--version"];
  const { code, output } = await runCommand(docker, args, { timeoutMs: 120_000 }).catch((err: unknown) => ({
    code: null,
    output: (err as Error).message,
  }));
  const version = /valgrind-([0-9][0-9.]*)/.exec(output)?.[1];
  if (code === 0 && version !== undefined) return { version };
  const said = output.trim().split("\n").pop() ?? "";
  return {
    reason: `image ${image} has no valgrind (${said || `exit ${code}`}); build it: PROXIES=${proxy} docker buildx bake -f action/docker-bake.hcl counted --load`,
  };
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
  const { args, env } = countedCommand(proxy, ctx, "native");
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

/**
 * The proxy's container under callgrind: its image with Valgrind (countedImageRef), Valgrind as
 * the entrypoint and pid 1 (no init), running the manifest's program with its `instructions`
 * args and env (else the image's), the configs mounted as in a timed docker run.
 */
export function buildContainerCallgrindSpec(
  proxy: LoadedProxy,
  ctx: ProxyContext,
  configs: RenderedConfig[],
  image: string,
  outFile: string,
): ProcessSpec {
  const program = countedProgram(proxy);
  if (program === undefined) throw new Error(`${proxy.file}: no program to count in the image`);
  const { args, env } = countedCommand(proxy, ctx, "image");
  return {
    ...buildDockerProxySpec(proxy, ctx, configs, image),
    args: [...callgrindArgs(outFile), program, ...args],
    env,
    container: { entrypoint: "valgrind", init: false },
  };
}

/** The counted process's args and env: `instructions.args`/`env` when given, else the section's. */
function countedCommand(
  proxy: LoadedProxy,
  ctx: ProxyContext,
  key: "native" | "image",
): { args: string[]; env: Record<string, string> } {
  const section = requiredSection(proxy, key);
  const counted = proxy.manifest.instructions;
  const vars = templateVars(proxy, ctx);
  const argsField = counted?.args ? "instructions.args" : `${key}.args`;
  const envField = counted?.env ? "instructions.env" : `${key}.env`;
  return {
    args: renderArgs(counted?.args ?? section.args, vars, `${proxy.file}: ${argsField}`),
    env: renderEnv(counted?.env ?? section.env, vars, `${proxy.file}: ${envField}`),
  };
}

/** Switches callgrind's instrumentation (`-i on`, `-i off`) or dumps (`-d`) in a running proxy. */
export type CallgrindControl = (args: string[]) => Promise<void>;

/** callgrind_control on this machine, on the proxy's pid. */
export function hostControl(tools: ValgrindTools, pid: number): CallgrindControl {
  return async (args) => {
    const { code, output } = await execOutput(tools.control, [...args, String(pid)], { timeoutMs: 30_000 });
    checkControl(args, String(pid), code, output);
  };
}

/** callgrind_control inside the proxy's container, on its pid 1 (Valgrind, the entrypoint). */
export function containerControl(proc: RunningProcess): CallgrindControl {
  const exec = proc.exec?.bind(proc);
  if (exec === undefined) throw new Error(`${proc.name}: no way to run a command beside it`);
  return async (args) => {
    const { code, output } = await exec("callgrind_control", [...args, "1"], 30_000);
    checkControl(args, `${proc.name} (pid 1 in its container)`, code, output);
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

/** callgrind_control says `OK.` for each process it reached. */
function checkControl(args: string[], target: string, code: number | null, output: string): void {
  if (code !== 0 || !/OK\./.test(output)) {
    throw new Error(`callgrind_control ${args.join(" ")} ${target} failed (exit ${code}): ${output.trim()}`);
  }
}
