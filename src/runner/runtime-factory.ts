import { UserError } from "../util/errors.js";
import { DockerRuntime } from "./docker-runtime.js";
import { NativeRuntime } from "./native-runtime.js";
import type { Runtime } from "./runtime.js";

export type RuntimeKind = Runtime["kind"];

/** How each runtime is created (`--runtime`); the type makes every RuntimeKind have one. */
const runtimeFactories: Record<RuntimeKind, () => Runtime> = {
  native: () => new NativeRuntime(),
  docker: () => new DockerRuntime(),
};

/** The runtime `--runtime` asked for. */
export function createRuntime(kind: RuntimeKind): Runtime {
  return runtimeFactories[kind]();
}

/** `--runtime TEXT` as a RuntimeKind; the error names the flag. */
export function parseRuntimeKind(text: string): RuntimeKind {
  if (Object.hasOwn(runtimeFactories, text)) return text as RuntimeKind;
  throw new UserError(`--runtime: '${text}' is not a runtime (${Object.keys(runtimeFactories).join(", ")})`);
}
