import type { LoadedProxy } from "../../manifests/load.js";
import {
  EXTENSION_KINDS,
  ScenarioManifest,
  type ExtensionKindName,
  type ProxyManifest,
} from "../../manifests/schema.js";
import { UserError } from "../../util/errors.js";

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
  /** Why it cannot run here (image only, binary missing). */
  unavailable?: string;
}

export interface ExtensionOption {
  /** `config`, `script`, or the coprocessor's name. */
  name: string;
  kind: ExtensionKindName;
  configs: Array<{ template: string; output: string }>;
  args: string[];
  env: Record<string, string>;
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
 * required file (a dynamic module) is installed.
 */
export function planOptions(
  gateway: LoadedProxy,
  test: string,
  coprocessors: readonly CoprocessorChoice[],
  fileExists: (file: string) => boolean,
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
    else if (ext.requires && !fileExists(ext.requires.file)) {
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
}

/**
 * The gateway's manifest for one option (pure): its native configs plus the option's, its
 * coprocessor as the sidecar, the memory cap, and what ran recorded in its tuning. The
 * baseline gets the same cap and nothing else. Native only: the image section is dropped.
 */
export function derivedManifest(
  gateway: ProxyManifest,
  option: ExtensionOption | undefined,
  settings: DerivedSettings,
): ProxyManifest {
  const { extensions: _extensions, image: _image, instructions: _instructions, ...rest } = gateway;
  if (!rest.native) throw new UserError(`${gateway.name}: the extensibility study runs native proxies only`);
  const c = option?.coprocessor;
  return {
    ...rest,
    native: {
      ...rest.native,
      args: [...rest.native.args, ...(option?.args ?? [])],
      env: { ...rest.native.env, ...(option?.env ?? {}) },
      configs: [...rest.native.configs, ...(option?.configs ?? [])],
    },
    memoryLimitBytes: settings.memoryLimitBytes,
    tuning: {
      ...rest.tuning,
      extension: option?.name ?? BASELINE,
      memoryLimit: `${settings.memoryLimitBytes} bytes each (prlimit --data)`,
      ...(c ? { coprocessorCores: settings.sidecarCpus.join(",") } : {}),
    },
    ...(c && c.binary !== undefined
      ? {
          sidecar: {
            name: `coprocessor-${c.name}`,
            binary: c.binary,
            args: c.args.map((a) => a.replaceAll("{{dir}}", c.dir)),
            env: c.env,
            cpus: settings.sidecarCpus,
            ready: "/health",
          },
        }
      : {}),
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
