import { z } from "zod";
import { CellStatus, CpuLayout, Environment, Repetition } from "../../results/schema.js";

/**
 * `instructions.json`: the results of `proxybench count`, written next to
 * the raw callgrind files. Its own file: a counted cell has no load generator, req/s or latency.
 */
export const INSTRUCTIONS_SCHEMA_VERSION = 1;
export const INSTRUCTIONS_FILE = "instructions.json";

export const CountedRepetition = z.object({
  index: z.number().int().nonnegative(),
  round: Repetition.shape.round,
  variant: z.string().optional().describe("The variant (--variant NAME=DIR) this repetition ran."),
  startedAt: z.iso.datetime(),
  status: CellStatus,
  reasons: z.array(z.string()),
  requests: z.number().int().nonnegative().describe("Measured requests (after the warm-up)."),
  failures: z
    .number()
    .int()
    .nonnegative()
    .describe("Responses that failed the scenario's check, and transport errors."),
  statusCodes: z.record(z.string(), z.number().int().nonnegative()),
  instructionsPerRequest: z.number().nonnegative().optional(),
  cyclesPerRequest: z
    .number()
    .nonnegative()
    .optional()
    .describe("Ir + 10 x (I1mr + D1mr + D1mw) + 100 x (ILmr + DLmr + DLmw), per request."),
  events: z
    .record(z.string(), z.number())
    .default({})
    .describe("callgrind's totals of the measured requests."),
  wallS: z.number().nonnegative().describe("Wall time of the measured requests under callgrind."),
  callgrindFile: z.string().optional().describe("Raw callgrind.out, relative to the results directory."),
});
export type CountedRepetition = z.infer<typeof CountedRepetition>;

export const CountedCell = z.object({
  id: z.string().describe("scenario/proxy, or scenario/proxy@variant in a variant run"),
  proxy: z.string(),
  variant: z.string().optional().describe("The variant (--variant NAME=DIR) whose manifests this cell ran."),
  scenario: z.string(),
  status: CellStatus,
  reasons: z.array(z.string()),
  proxyVersion: z.string().optional(),
  image: z
    .string()
    .optional()
    .describe("The image it was counted in (--runtime docker): its image with Valgrind."),
  repetitions: z.array(CountedRepetition),
  log: z.string().optional(),
});
export type CountedCell = z.infer<typeof CountedCell>;

export const InstructionsResults = z.object({
  schemaVersion: z.literal(INSTRUCTIONS_SCHEMA_VERSION),
  measure: z.literal("instructions"),
  runId: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().optional(),
  settings: z.object({
    proxies: z.array(z.string()),
    scenarios: z.array(z.string()),
    repetitions: z.number().int().positive(),
    requests: z.number().int().positive(),
    warmupRequests: z.number().int().nonnegative(),
    connections: z.number().int().positive(),
    cpus: CpuLayout,
    runtime: z
      .enum(["native", "docker"])
      .optional()
      .describe(
        "Where the proxies ran under Valgrind: on this machine (absent) or each in its image (docker).",
      ),
    imageTag: z.string().optional().describe("--image-tag of a docker run."),
    valgrind: z.string(),
    variants: z
      .array(z.object({ name: z.string(), dir: z.string() }))
      .optional()
      .describe("Variants counted side by side in rounds (--variant NAME=DIR), in order."),
  }),
  environment: Environment.optional(),
  skipped: z.array(z.object({ proxy: z.string(), reason: z.string() })).default([]),
  cells: z.array(CountedCell),
});
export type InstructionsResults = z.infer<typeof InstructionsResults>;

/** A cell's figures of one metric, over its ok repetitions that have it. */
export function okValues(cell: CountedCell, key: "instructionsPerRequest" | "cyclesPerRequest"): number[] {
  return cell.repetitions.flatMap((r) => (r.status === "ok" && r[key] !== undefined ? [r[key]] : []));
}

export function countedCellId(scenario: string, proxy: string, variant?: string): string {
  return `${scenario}/${proxy}${variant === undefined ? "" : `@${variant}`}`;
}
