import { UserError } from "../util/errors.js";
import { DockerRuntime } from "./docker-runtime.js";
import { NativeRuntime } from "./native-runtime.js";
import type { Runtime } from "./runtime.js";

export type RuntimeKind = Runtime["kind"];

/** How each runtime is created. */
export const runtimeFactories: Partial<Record<RuntimeKind, () => Promise<Runtime> | Runtime>> = {
  native: () => new NativeRuntime(),
  docker: () => new DockerRuntime(),
};

/** The runtime `--runtime` asked for. */
export async function createRuntime(kind: RuntimeKind): Promise<Runtime> {
  const factory = runtimeFactories[kind];
  if (!factory) throw new UserError(`--runtime ${kind}: not available in this build (use --runtime native)`);
  return factory();
}

export function parseRuntimeKind(text: string): RuntimeKind {
  if (text === "native" || text === "docker") return text;
  throw new UserError(`--runtime: '${text}' is not a runtime (native, docker)`);
}
