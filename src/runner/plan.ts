import type { LoadedProxy, LoadedScenario, ManifestSet } from "../manifests/load.js";
import type { ScenarioManifest } from "../manifests/schema.js";
import {
  cellId,
  overTls,
  type Cell,
  type Engine,
  type Load,
  type Protocol,
  type Settings,
} from "../results/schema.js";
import { ENGINE_PROTOCOLS, engineRunsLoad, engineSpeaks } from "../engines/load.js";
import { tlsCounterpart } from "../results/protocols.js";
import { UserError } from "../util/errors.js";
import { formatCpuLayout } from "./cpus.js";

/**
 * The matrix of a run, pure: which cells run, grouped in blocks (one scenario and load level:
 * one upstream, every proxy started once), and in which order the repetitions go.
 */

export const DEFAULT_PROXIES = ["direct", "nginx", "haproxy"];
export const DEFAULT_SCENARIOS = ["passthrough", "json-lookup"];
/**
 * Repetitions (rounds) of a run by default. 10 give the default benchmark's tables an interval
 * for each change against direct at all (20 changes judged together at alpha 0.05:
 * 2 / 2^n <= 0.05 / 20, src/report/model.ts); 21 find what they are for. nginx's p50 over
 * direct in passthrough is about +15-30% with rounds spread by 25-30%: at 11 rounds in random
 * order its interval included 0 in 3 runs of 3, at 21 it excluded 0 every time
 * (`npm run bench:table-noise`, docs/reports.md). The default loads' repetitions are 1 s, so
 * 21 rounds take about 5 minutes.
 */
export const DEFAULT_REPETITIONS = 21;
/** Used when neither the flag nor the scenario's load gives a duration. */
const DEFAULT_DURATION_S = 10;
const DEFAULT_WARMUP_S = 3;

export interface PlannedCell {
  id: string;
  proxy: LoadedProxy;
  scenario: LoadedScenario;
  /** With durationS and warmupS resolved. */
  load: Load & { durationS: number; warmupS: number };
  engine: Engine;
  /** The variant (--variant NAME=DIR) whose manifests this cell runs. */
  variant?: string;
  /** Added by --tls: the scenario's protocol over TLS (its copy in `scenario` speaks it). */
  tls?: Protocol;
}

/** A proxy as files name it: "nginx", or "nginx@head" in a variant run. */
export function proxyStem(proxy: string, variant: string | undefined): string {
  return variant === undefined ? proxy : `${proxy}@${variant}`;
}

export interface Block extends Pick<PlannedCell, "scenario" | "load" | "engine"> {
  /** `scenario-load`: names the block's logs and raw files. */
  key: string;
  cells: PlannedCell[];
}

export interface Plan {
  blocks: Block[];
  /** Proxies not run: on any scenario (no `scenario`), or on one whose protocol they do not front. */
  skipped: Array<{ proxy: string; scenario?: string; reason: string }>;
  /** What the plan chose that the user did not ask for (printed before the run). */
  notes: string[];
}

/** What the names asked for load, each once; a name not known is an error listing the known ones. */
function selectNames<T>(flag: string, asked: readonly string[], known: ReadonlyMap<string, T>): T[] {
  const unknown = asked.filter((n) => !known.has(n));
  if (unknown.length > 0) {
    const list = [...known.keys()].sort().join(", ") || "(none)";
    throw new UserError(`${flag}: unknown ${unknown.map((u) => `'${u}'`).join(", ")} (known: ${list})`);
  }
  return [...new Set(asked)].map((n) => known.get(n)!);
}

export function buildPlan(settings: Settings, manifests: ManifestSet): Plan {
  const asked = selectNames("--proxies", settings.proxies, manifests.proxies);
  const scenarios = selectNames("--scenarios", settings.scenarios, manifests.scenarios);
  const skipped: Plan["skipped"] = [];
  const proxies: LoadedProxy[] = [];
  for (const p of asked) {
    const reason = skipReason(p, settings.runtime);
    if (reason) skipped.push({ proxy: p.manifest.name, reason });
    else proxies.push(p);
  }
  const labels = settings.loads;
  const unmatched = labels?.find(
    (label) => !scenarios.some((s) => s.manifest.loads.some((l) => l.label === label)),
  );
  if (unmatched !== undefined) throw new UserError(`--load: no selected scenario has a load '${unmatched}'`);
  const blocks: Block[] = [];
  const notes: string[] = [];
  for (const scenario of scenarios) {
    const name = scenario.manifest.name;
    const engine = settings.engine ?? scenario.manifest.engine;
    assertEngineSpeaks(name, engine, scenario.manifest.protocol);
    const loads = selectLoads(name, scenario, engine, labels, notes);
    const resolved = loads.map((load) => ({
      ...load,
      durationS: settings.durationS ?? load.durationS ?? DEFAULT_DURATION_S,
      warmupS: settings.warmupS ?? load.warmupS ?? DEFAULT_WARMUP_S,
    }));
    const tlsCopy = settings.tls === true ? tlsScenario(scenario) : undefined;
    for (const copy of [{ scenario, tls: undefined }, ...(tlsCopy ? [tlsCopy] : [])]) {
      assertEngineSpeaks(name, engine, copy.scenario.manifest.protocol);
      const fronting = frontingProxies(proxies, copy.scenario, skipped);
      blocks.push(...scenarioBlocks(copy.scenario, copy.tls, resolved, engine, fronting));
    }
  }
  return { blocks, skipped, notes };
}

/**
 * The loads a scenario runs: the --load labels, or without them its first level the engine can
 * run (wrk and ab have no open model, so `--engine wrk` alone runs a closed-model level, with
 * a note).
 */
function selectLoads(
  name: string,
  scenario: LoadedScenario,
  engine: Engine,
  labels: readonly string[] | undefined,
  notes: string[],
): ScenarioManifest["loads"] {
  const all = scenario.manifest.loads;
  const known = all.map((l) => `${l.label} (${l.model})`).join(", ");
  const loads = labels
    ? all.filter((l) => labels.includes(l.label))
    : all.filter((l) => engineRunsLoad(engine, l)).slice(0, 1);
  if (loads.length === 0) {
    throw new UserError(
      labels
        ? `--load: scenario '${name}' has none of ${labels.join(", ")} (its loads: ${known})`
        : `scenario '${name}' has no load that ${engine} can run (its loads: ${known})`,
    );
  }
  const first = all[0];
  if (!labels && first && loads[0] !== first) {
    notes.push(
      `scenario '${name}': ${engine} cannot run its first load '${first.label}' (${first.model}); ` +
        `running '${loads[0]!.label}' (${loads[0]!.model}), the first it can (choose with --load)`,
    );
  }
  const unfit = loads.find((l) => !engineRunsLoad(engine, l));
  if (unfit) {
    throw new UserError(
      `--load ${unfit.label}: ${engine} cannot run a ${unfit.model} load (scenario '${name}'; its loads: ${known}); use --engine k6`,
    );
  }
  return loads;
}

/** One block per load of a scenario (none without a proxy to run). */
function scenarioBlocks(
  scenario: LoadedScenario,
  tls: Protocol | undefined,
  loads: readonly PlannedCell["load"][],
  engine: Engine,
  fronting: readonly LoadedProxy[],
): Block[] {
  const name = scenario.manifest.name;
  return fronting.length === 0
    ? []
    : loads.map((load) => ({
        key: `${name}-${load.label}${tls === undefined ? "" : `-${tls}`}`,
        scenario,
        load,
        engine,
        cells: fronting.map((proxy) => {
          const cell = { proxy, scenario, load, engine, ...(tls === undefined ? {} : { tls }) };
          return { id: plannedCellId(cell, undefined), ...cell };
        }),
      }));
}

/** --tls: the scenario's copy speaking its protocol over TLS (none when it is TLS already). */
function tlsScenario(scenario: LoadedScenario): { scenario: LoadedScenario; tls: Protocol } | undefined {
  const tls = tlsCounterpart(scenario.manifest.protocol);
  if (tls === undefined) return undefined;
  return { scenario: { ...scenario, manifest: { ...scenario.manifest, protocol: tls } }, tls };
}

/** A scenario whose protocol the run's engine does not speak; the message names the engines that do. */
export class UnspokenProtocol extends UserError {
  constructor(
    readonly scenario: string,
    readonly engine: Engine,
    readonly protocol: Protocol,
  ) {
    const speaking = Object.entries(ENGINE_PROTOCOLS).flatMap(([e, ps]) =>
      ps.includes(protocol) ? [e] : [],
    );
    super(
      `${unspokenText(scenario, engine, protocol)}; ` +
        (speaking.length > 0 ? `use --engine ${speaking.join(" or ")}` : `no engine speaks ${protocol} yet`),
    );
  }
}

/** "scenario 'x' speaks h2c, which k6 does not (k6: http1, ...)". */
export function unspokenText(scenario: string, engine: Engine, protocol: Protocol): string {
  return `scenario '${scenario}' speaks ${protocol}, which ${engine} does not (${engine}: ${ENGINE_PROTOCOLS[engine].join(", ")})`;
}

/** Throws when the engine does not speak the scenario's protocol. */
function assertEngineSpeaks(scenario: string, engine: Engine, protocol: Protocol): void {
  if (!engineSpeaks(engine, protocol)) throw new UnspokenProtocol(scenario, engine, protocol);
}

/** The id of a planned cell (results.json's `cellId`), with its variant's suffix when it has one. */
function plannedCellId(c: Omit<PlannedCell, "id" | "variant">, variant: string | undefined): string {
  const { scenario, load, proxy, engine } = c;
  return cellId(
    scenario.manifest.name,
    load.label,
    proxy.manifest.name,
    engine,
    variant,
    overTls(scenario.manifest.protocol),
  );
}

/** A skipped proxy as the run names it: `nginx`, or `nginx on passthrough-h2c`. */
export function skippedName(s: Plan["skipped"][number]): string {
  return `${s.proxy}${s.scenario ? ` on ${s.scenario}` : ""}`;
}

/** The proxies that front the scenario's protocol; the others are added to `skipped` for it. */
function frontingProxies(
  proxies: readonly LoadedProxy[],
  scenario: LoadedScenario,
  skipped: Plan["skipped"],
): LoadedProxy[] {
  const { name, protocol } = scenario.manifest;
  // The protocols a proxy fronts are those its proxy.yml declares (`protocols:`).
  const fronting = proxies.filter((p) => p.manifest.protocols[protocol] !== undefined);
  for (const p of proxies.filter((q) => !fronting.includes(q))) {
    const declared = Object.keys(p.manifest.protocols).join(", ") || "none";
    const reason = `does not front ${protocol} (its proxy.yml declares protocols: ${declared})`;
    skipped.push({ proxy: p.manifest.name, scenario: name, reason });
  }
  return fronting;
}

/** Why a proxy is skipped under --runtime native when its proxy.yml has no native section. */
export const PLAN_IMAGE_ONLY_REASON = "image only: run it with --runtime docker";

/** Why a proxy cannot run with this runtime (undefined: it can). */
function skipReason(proxy: LoadedProxy, runtime: Settings["runtime"]): string | undefined {
  const m = proxy.manifest;
  if (m.kind === "direct") return undefined;
  if (runtime === "native" && !m.native) return PLAN_IMAGE_ONLY_REASON;
  if (runtime === "docker" && !m.image) return "no image section: run it with --runtime native";
  return undefined;
}

/**
 * The plans of several variants as one: blocks with the same key (scenario and load) merged,
 * their cells side by side (every proxy of the first variant, then of the next), each cell's id
 * suffixed with its variant. A block a variant lacks is an error: the variants are compared.
 */
export function mergeVariantPlans(plans: ReadonlyArray<{ variant: string; plan: Plan }>): Plan {
  const blocks = new Map<string, Block>();
  const skipped = new Map<string, Plan["skipped"][number]>();
  for (const { variant, plan } of plans) {
    for (const block of plan.blocks) {
      const cells = block.cells.map((c) => ({ ...c, variant, id: plannedCellId(c, variant) }));
      const merged = blocks.get(block.key);
      if (merged) merged.cells.push(...cells);
      else blocks.set(block.key, { ...block, cells });
    }
    for (const s of plan.skipped) skipped.set(`${s.proxy}\n${s.scenario ?? ""}\n${s.reason}`, s);
  }
  const keys = plans.map(({ variant, plan }) => ({ variant, keys: new Set(plan.blocks.map((b) => b.key)) }));
  for (const key of blocks.keys()) {
    const lacking = keys.find((k) => !k.keys.has(key));
    if (lacking) {
      throw new UserError(
        `--variant ${lacking.variant}: no '${key}' block (its scenario or load differs from the other variants'); give every variant the same scenarios and loads`,
      );
    }
  }
  const notes = [...new Set(plans.flatMap((p) => p.plan.notes))];
  return { blocks: [...blocks.values()], skipped: [...skipped.values()], notes };
}

/** Planned seconds of load of a block (warm-ups and repetitions), for the ETA. */
export function plannedSeconds(
  block: Block,
  repetitions: number,
  cellCount = block.cells.length,
  lifetime: Settings["proxyLifetime"] = "block",
): number {
  // round: the block's first warm-up, then one for the process started anew before each round
  const warmups = lifetime === "round" ? repetitions + 1 : 1;
  return cellCount * (warmups * block.load.warmupS + repetitions * block.load.durationS);
}

/**
 * Resuming: cells of the plan already finished (finishedAt set, whatever their status) are kept;
 * every other planned cell runs again from its first repetition.
 */
export function splitForResume(existing: readonly Cell[], plan: Plan): { keep: Cell[]; todo: Set<string> } {
  const planned = new Set(plan.blocks.flatMap((b) => b.cells.map((c) => c.id)));
  const keep = existing.filter((c) => c.finishedAt !== undefined && planned.has(c.id));
  const kept = new Set(keep.map((c) => c.id));
  return { keep, todo: new Set([...planned].filter((id) => !kept.has(id))) };
}

/** The flags a user may repeat with --resume, by setting; each must equal what was recorded. */
const FLAG_NAMES = {
  proxies: "--proxies",
  scenarios: "--scenarios",
  engine: "--engine",
  repetitions: "--repetitions",
  durationS: "--duration",
  warmupS: "--warmup",
  cpus: "--cpus",
  runtime: "--runtime",
  loads: "--load",
  imageTag: "--image-tag",
  proxiesDirs: "--proxies-dir",
  scenariosDirs: "--scenarios-dir",
  variants: "--variant",
  noiseLimit: "--noise-limit",
  retries: "--retries",
  roundOrder: "--round-order",
  seed: "--seed",
  proxyLifetime: "--proxy-lifetime",
  testedMetrics: "--test-metrics",
  shard: "--shard",
  tls: "--tls",
} as const satisfies Partial<Record<keyof Settings, string>>;

export type ResumeFlags = Partial<Pick<Settings, keyof typeof FLAG_NAMES>>;

/** Throws when a flag given with --resume differs from the recorded settings. */
export function checkResumeFlags(recorded: Settings, flags: ResumeFlags): void {
  const conflicts: string[] = [];
  for (const key of Object.keys(FLAG_NAMES) as Array<keyof ResumeFlags>) {
    const given = flags[key];
    if (given === undefined) continue;
    const was = recorded[key];
    if (JSON.stringify(given) !== JSON.stringify(was)) {
      conflicts.push(`${FLAG_NAMES[key]} ${show(key, given)} differs from the recorded ${show(key, was)}`);
    }
  }
  if (conflicts.length > 0) {
    throw new UserError(
      `--resume: ${conflicts.join("; ")} (drop the flag to resume with the recorded settings)`,
    );
  }
}

function show(key: keyof ResumeFlags, value: unknown): string {
  if (value === undefined) return "(none)";
  if (key === "cpus") return formatCpuLayout(value as Settings["cpus"]);
  if (key === "shard") {
    const { index, count } = value as NonNullable<Settings["shard"]>;
    return `${index}/${count}`;
  }
  if (key === "variants")
    return (value as Array<{ name: string; dir: string; imageTag?: string }>)
      .map((v) => `${v.name}${v.imageTag === undefined ? "" : `:${v.imageTag}`}=${v.dir}`)
      .join(" ");
  if (Array.isArray(value)) return value.join(",");
  return typeof value === "string" || typeof value === "number" ? String(value) : JSON.stringify(value);
}
