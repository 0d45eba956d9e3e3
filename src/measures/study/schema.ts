import { z } from "zod";
import { Engine, Protocol } from "../../results/schema.js";

/**
 * A study: `studies/<name>/study.yml`, a published benchmark reproduced as one command
 * (`proxybench study NAME`). It names the proxies, the scenarios (built-in ones, or its
 * own under `studies/<name>/scenarios/<scenario>/scenario.yml`), the load levels, the duration,
 * the repetitions, the engine, and the table layout its original published.
 */

const name = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]*$/, "lower-case letters, digits and '-', starting with a letter or digit");

/**
 * The table layouts of the originals:
 * - `k6-summary`: k6's end-of-test summary (duration avg/min/med/max/p90/p95, failed %, req/s,
 *   data received), one column per proxy and load level.
 * - `crank-compare`: crank's compare table, the first proxy as baseline, signed % columns.
 * - `ab`: ApacheBench's figures (req/s, time per request, the percentile ladder 50..100%).
 * - `go-bench`: `go test -bench` lines, one per path (`BenchmarkNginxGrpc/pingpong_proto_ingestion
 *   N ns/op`, the study's `paths`), then a table of the paths with their change against each of
 *   the study's `references`.
 * - `extensibility`: one table per test (scenario), a row per extension option, Min..Max latency
 *   each with its (+delta) against the gateway without extension (Apollo's router study).
 */
export const StudyLayout = z.enum(["k6-summary", "crank-compare", "ab", "go-bench", "extensibility"]);
export type StudyLayout = z.infer<typeof StudyLayout>;

const StudySource = z.strictObject({
  /** The write-up reproduced: its number in the seeds (e.g. "000"). */
  seed: z.string().regex(/^\d{3}$/, "three digits, e.g. '000'"),
  title: z.string().min(1),
  /** What the original compared, with what load, and what it reported. */
  compared: z.string().min(1),
  load: z.string().min(1),
  reported: z.string().min(1),
  /** Where the original fell short and what proxybench does about it. */
  flaws: z.array(z.string().min(1)).default([]),
});

/** One measured path of a `go-bench` study: a proxy on a scenario, named as the original's benchmark. */
const StudyPath = z
  .object({
    /** The original's benchmark name, e.g. `BenchmarkNginxGrpc/pingpong_proto_ingestion`. */
    name: z.string().regex(/^Benchmark\S+$/, "a Go benchmark name: Benchmark<Name>[/<sub>]"),
    scenario: name,
    proxy: name,
    /** The protocol over TLS the path speaks (the study's `tls: true` measures it); absent: the scenario's own. */
    protocol: Protocol.optional(),
  })
  .strict();
export type StudyPath = z.infer<typeof StudyPath>;

/**
 * The extensibility study: each test (a scenario of the study) measured on each gateway (the
 * study's proxies) without extension (`baseline`), with its `config`, its `script` and each
 * coprocessor (`coprocessors/<name>/`), as variants side by side. `effects` is the check an
 * extension variant's responses must pass on top of the scenario's (`{{option}}` is the
 * variant's name): a variant that skips the work is invalid.
 */
export const ExtensibilitySettings = z
  .object({
    coprocessors: z.array(name).min(1),
    /** Data memory cap of the gateway and of the coprocessor, each (prlimit --data). */
    memoryLimitBytes: z.number().int().positive(),
    effects: z.record(name, z.record(z.string(), z.unknown())),
  })
  .strict();
export type ExtensibilitySettings = z.infer<typeof ExtensibilitySettings>;

const StudyManifestShape = z
  .object({
    name,
    title: z.string().min(1),
    description: z.string().min(1),
    source: StudySource,
    /** In column order; the first is the baseline of `crank-compare` tables unless `baseline` says otherwise. */
    proxies: z.array(name).min(1),
    baseline: name.optional(),
    scenarios: z.array(name).min(1),
    /** Load labels to run (of the scenarios' `loads`); absent: every load of each scenario. */
    loads: z.array(z.string().min(1)).min(1).optional(),
    durationS: z.number().positive(),
    warmupS: z.number().nonnegative().default(0),
    repetitions: z.number().int().positive().default(1),
    engine: Engine,
    /** Also every scenario over TLS on the client side of the proxies that declare it, as `run --tls`. */
    tls: z.boolean().default(false),
    layout: StudyLayout,
    /** `go-bench`: the paths, in the original's order. */
    paths: z.array(StudyPath).min(1).optional(),
    /** `go-bench`: the paths every other is compared with (`name`s of `paths`), e.g. direct gRPC and direct REST. */
    references: z.array(z.string()).optional(),
    extensibility: ExtensibilitySettings.optional(),
  })
  .strict();

export const StudyManifest = StudyManifestShape.superRefine((s, ctx) => {
  const dupProxy = s.proxies.find((p, i) => s.proxies.indexOf(p) !== i);
  if (dupProxy !== undefined) issue(ctx, ["proxies"], `'${dupProxy}' is listed twice`);
  checkPaths(s, ctx);
  if ((s.layout === "extensibility") !== (s.extensibility !== undefined)) {
    issue(ctx, ["extensibility"], "the extensibility layout and the extensibility section go together");
  }
  if (s.baseline !== undefined && !s.proxies.includes(s.baseline)) {
    issue(ctx, ["baseline"], `'${s.baseline}' is not one of the study's proxies (${s.proxies.join(", ")})`);
  }
});
export type StudyManifest = z.infer<typeof StudyManifest>;

/** `paths` and `references` belong to a `go-bench` study and name its proxies and scenarios. */
function checkPaths(s: z.infer<typeof StudyManifestShape>, ctx: z.RefinementCtx): void {
  if (s.layout !== "go-bench") {
    for (const field of ["paths", "references"] as const) {
      if (s[field] !== undefined) {
        issue(ctx, [field], "only for layout go-bench");
      }
    }
    return;
  }
  if (s.paths === undefined) {
    issue(ctx, ["paths"], "layout go-bench needs the paths, one per benchmark line");
    return;
  }
  s.paths.forEach((p, i) => {
    if (!s.proxies.includes(p.proxy)) {
      issue(ctx, ["paths", i, "proxy"], `'${p.proxy}' is not one of the study's proxies`);
    }
    if (!s.scenarios.includes(p.scenario)) {
      issue(ctx, ["paths", i, "scenario"], `'${p.scenario}' is not one of the study's scenarios`);
    }
  });
  const names = s.paths.map((p) => p.name);
  (s.references ?? []).forEach((r, i) => {
    if (!names.includes(r)) {
      issue(ctx, ["references", i], `'${r}' is not the name of one of the paths`);
    }
  });
}

/** A problem of the study file at `path`. */
function issue(ctx: z.RefinementCtx, path: PropertyKey[], message: string): void {
  ctx.addIssue({ code: "custom", path, message });
}

/** The proxy every other is compared with: `baseline`, else the first listed. */
export function studyBaseline(study: StudyManifest): string {
  return study.baseline ?? study.proxies[0] ?? "";
}
