import type { LoadedProxy } from "../../../manifests/load.js";
import {
  EXTENSION_KINDS,
  ScenarioManifest,
  type ExtensionKindName,
  type ProxyManifest,
} from "../../../manifests/schema.js";
import { UserError } from "../../../util/errors.js";

/**
 * Pure planning of the extensibility study: which options (rows) a gateway has for a test,
 * why the others are blank, and the manifests each option runs with: the gateway's own plus
 * the option's config files, its coprocessor as a sidecar, the memory cap; the test's scenario
 * plus the effect check that proves the option did its work.
 */

/** The row of the gateway without any extension: the baseline of every table. */
export const BASELINE = "baseline";

/** A coprocessor as the planner sees it: where it runs from, or why it cannot. */
export interface CoprocessorChoice {
  name: string;
  dir: string;
  binary?: string;
  args: string[];
  env: Record<string, string>;
  /** Under `--runtime docker`: its image and the container's args and env. */
  image?: { ref: string; args: string[]; env: Record<string, string> };
  /** Why it cannot run here (image only, binary missing). */
  unavailable?: string;
}

type ExtensionKind = NonNullable<NonNullable<ProxyManifest["extensions"]>[ExtensionKindName]>;

export interface ExtensionOption extends Pick<ExtensionKind, "configs" | "args" | "env"> {
  /** `config`, `script`, or the coprocessor's name. */
  name: string;
  kind: ExtensionKindName;
  coprocessor?: CoprocessorChoice;
}

export interface OptionPlan {
  options: ExtensionOption[];
  skipped: Array<{ option: string; reason: string }>;
}

/**
 * Is `test` one of `gateway`'s (pure)? It is when one of its extension kinds names it, done or
 * unsupported: an HTTP proxy has the HTTP tests, a GraphQL gateway the GraphQL ones, and a
 * gateway is never measured on a test it does not know.
 */
export function isGatewayTest(gateway: ProxyManifest, test: string): boolean {
  return Object.values(gateway.extensions ?? {}).some((kind) => test in kind.tests);
}

/**
 * The options of `gateway` for `test`, in the seed's row order (config, script, then each
 * coprocessor), and the ones it lacks with the reason. `fileExists` says whether a kind's
 * required file (a dynamic module) is installed; `env` holds the variables a test may require
 * (Apollo Router's licence).
 */
export function planOptions(
  gateway: LoadedProxy,
  test: string,
  coprocessors: readonly CoprocessorChoice[],
  fileExists: (file: string) => boolean,
  env: Readonly<Record<string, string | undefined>> = {},
): OptionPlan {
  const plan: OptionPlan = { options: [], skipped: [] };
  const name = gateway.manifest.name;
  for (const kind of EXTENSION_KINDS) {
    const rows = kind === "coprocessor" ? coprocessors.map((c) => c.name) : [kind];
    const ext = gateway.manifest.extensions?.[kind];
    const point = ext?.tests[test];
    const skipAll = (reason: string) => rows.forEach((option) => plan.skipped.push({ option, reason }));
    if (!ext) skipAll(`${name} has no ${kind} extension point in ${gateway.file}`);
    else if (!point) skipAll(`${name}'s ${kind} extension point has no '${test}' test in ${gateway.file}`);
    else if ("unsupported" in point) skipAll(point.unsupported);
    else if (point.requiresEnv && !env[point.requiresEnv.name]) {
      skipAll(`${point.requiresEnv.reason} (set ${point.requiresEnv.name} to run it)`);
    } else if (ext.requires && !fileExists(ext.requires.file)) {
      skipAll(
        `needs ${ext.requires.file} (Debian package ${ext.requires.package}; fix: npm run setup -- --study extensibility)`,
      );
    } else {
      const option = { kind, configs: [...ext.configs, ...point.configs], args: ext.args, env: ext.env };
      if (kind !== "coprocessor") plan.options.push({ ...option, name: kind });
      for (const c of kind === "coprocessor" ? coprocessors : []) {
        if (c.unavailable !== undefined) plan.skipped.push({ option: c.name, reason: c.unavailable });
        else plan.options.push({ ...option, name: c.name, coprocessor: c });
      }
    }
  }
  return plan;
}

export interface DerivedSettings {
  memoryLimitBytes: number;
  /** Cores of the coprocessor. */
  sidecarCpus: number[];
  /** Where the gateway runs: natively, or its image (and the coprocessor its own, if it has one). */
  runtime?: "native" | "docker";
}

/** Where an image's new config file is mounted when no config of the same output names one. */
const IMAGE_CONFIG_DIR = "/etc/proxybench";

type RunSection = NonNullable<ProxyManifest["native"] | ProxyManifest["image"]>;
type SectionConfig = RunSection["configs"][number];

/**
 * A section's configs with the option's (pure): an option's config replaces the section's of the
 * same output in place (a container keeps its mount), the others are added after them, mounted
 * in IMAGE_CONFIG_DIR when the section is an image's.
 */
function withOptionConfigs(
  configs: readonly SectionConfig[],
  added: ExtensionOption["configs"],
  image: boolean,
): SectionConfig[] {
  const out = [...configs];
  for (const a of added) {
    const i = out.findIndex((c) => c.output === a.output);
    const same = out[i];
    if (same) out[i] = { ...same, template: a.template };
    else out.push(image ? { ...a, mount: `${IMAGE_CONFIG_DIR}/${a.output}` } : { ...a });
  }
  return out;
}

/** The gateway's section for the runtime with the option's args, env and configs (pure). */
function optionSection<S extends RunSection>(
  section: S,
  option: ExtensionOption | undefined,
  image: boolean,
): S {
  return {
    ...section,
    args: [...section.args, ...(option?.args ?? [])],
    env: { ...section.env, ...(option?.env ?? {}) },
    configs: withOptionConfigs(section.configs, option?.configs ?? [], image),
  };
}

/**
 * The gateway's manifest for one option (pure): its configs plus the option's, its coprocessor
 * as the sidecar, the memory cap, and what ran recorded in its tuning. The baseline gets the
 * same cap and nothing else. Natively the image section is dropped; under docker the native one.
 */
export function derivedManifest(
  gateway: ProxyManifest,
  option: ExtensionOption | undefined,
  settings: DerivedSettings,
): ProxyManifest {
  const { extensions: _extensions, image, native, instructions: _instructions, ...rest } = gateway;
  const docker = settings.runtime === "docker";
  if (docker && !image) throw new UserError(`${gateway.name}: --runtime docker: it has no image`);
  if (!docker && !native)
    throw new UserError(
      `${gateway.name}: the extensibility study runs it natively only with a 'native' section`,
    );
  const c = option?.coprocessor;
  return {
    ...rest,
    ...(docker && image ? { image: optionSection(image, option, true) } : {}),
    ...(!docker && native ? { native: optionSection(native, option, false) } : {}),
    memoryLimitBytes: settings.memoryLimitBytes,
    tuning: {
      ...rest.tuning,
      extension: option?.name ?? BASELINE,
      memoryLimit: `${settings.memoryLimitBytes} bytes each (${memoryCapHow(docker, c === undefined || c.image !== undefined)})`,
      ...(c ? { coprocessorCores: settings.sidecarCpus.join(",") } : {}),
    },
    ...(c ? coprocessorSidecar(c, settings.sidecarCpus) : {}),
  };
}

/**
 * How the gateway's and the coprocessor's memory caps are held (pure): docker's `--memory` for
 * what runs in a container, else `prlimit --data`.
 */
export function memoryCapHow(docker: boolean, coprocessorInImage: boolean): string {
  if (!docker) return "prlimit --data";
  return coprocessorInImage ? "docker --memory" : "docker --memory; the coprocessor prlimit --data";
}

/** The coprocessor as the gateway's sidecar: from its image when it has one here, else its binary (pure). */
function coprocessorSidecar(
  c: CoprocessorChoice,
  cpus: number[],
): Pick<ProxyManifest, "sidecar"> | Record<string, never> {
  const common = { name: `coprocessor-${c.name}`, cpus, ready: "/health" };
  if (c.image) return { sidecar: { ...common, image: c.image.ref, args: c.image.args, env: c.image.env } };
  if (c.binary === undefined) return {};
  return {
    sidecar: {
      ...common,
      binary: c.binary,
      args: c.args.map((a) => a.replaceAll("{{dir}}", c.dir)),
      env: c.env,
    },
  };
}

/** Replaces `{{option}}` in every string of an effect check (pure). */
function renderOption(value: unknown, option: string): unknown {
  if (typeof value === "string") return value.replaceAll("{{option}}", option);
  if (Array.isArray(value)) return value.map((v) => renderOption(v, option));
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, renderOption(v, option)]));
  }
  return value;
}

/**
 * The test's scenario for one option (pure): the baseline's as it is, an extension's with the
 * effect check added, so that a variant that skips the work fails its check. A check the
 * scenario schema refuses is a UserError naming the study file.
 */
export function variantScenario(
  scenario: ScenarioManifest,
  effect: Record<string, unknown> | undefined,
  option: string,
  studyFile: string,
): ScenarioManifest {
  if (option === BASELINE || effect === undefined) return scenario;
  const parsed = ScenarioManifest.safeParse({
    ...scenario,
    check: { ...scenario.check, ...(renderOption(effect, option) as Record<string, unknown>) },
  });
  if (!parsed.success) {
    throw new UserError(
      `${studyFile}: extensibility.effects.${scenario.name}: ${parsed.error.issues[0]?.message ?? "invalid"}`,
    );
  }
  return parsed.data;
}
