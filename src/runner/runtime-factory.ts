import { UserError } from "../util/errors.js";
import { DockerRuntime } from "./docker-runtime.js";
import { NativeRuntime } from "./native-runtime.js";
import type { Runtime } from "./runtime.js";

export type RuntimeKind = Runtime["kind"];

/** The docker client `--runtime docker` runs: $PROXYBENCH_DOCKER (a docker-compatible CLI), else `docker`. */
export const DOCKER_CLIENT_ENV = "PROXYBENCH_DOCKER";

/** The docker client to run. */
export function dockerClient(env: NodeJS.ProcessEnv = process.env): string {
  return env[DOCKER_CLIENT_ENV] || "docker";
}

/** How each runtime is created (`--runtime`); the type makes every RuntimeKind have one. */
const runtimeFactories: Record<RuntimeKind, () => Runtime> = {
  native: () => new NativeRuntime(),
  docker: () => new DockerRuntime({ docker: dockerClient() }),
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
