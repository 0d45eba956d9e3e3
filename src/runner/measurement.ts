import { runBlockLifecycle, type BlockLifecycle, type MeasurementStep } from "./lifecycle.js";
import type { Block, Plan } from "./plan.js";
import { preflight, type PreflightResult } from "./preflight.js";
import { onInterrupt, stopAll } from "../util/processes.js";
import type { SavedDocument } from "./results-file.js";

/**
 * The one driver of every kind of measurement (wall clock: measures/wall-clock/run.ts; counted:
 * measures/counted/run.ts; max-rate: measures/max-rate/run.ts): the kind plans (its settings with
 * its defaults, the plan, the results folder refused when used), the preflight checks what its
 * engines and proxies need (preflight.ts), the kind makes ready (runtime, environment, the
 * results document), then the plan's blocks run in one session, each the block lifecycle
 * (lifecycle.ts) with the kind's step, and the kind finishes.
 */

/** Where a measurement, or its dry run, writes its text (stdout; a test's buffer). */
export type Out = { write(text: string): unknown };

/** A measurement made ready to start: its session's saves, and what runs each block of its plan. */
export interface ReadyMeasurement {
  session: SessionSpec;
  /** One block of the plan, in the session: its cells and context, and the kind's step; undefined: none to run. */
  blockRun(block: Block, session: RunSession): BlockRun | undefined;
  /** After the last block, the results' last touches (their order, when they finished), before their last save. */
  settle?(): void;
}

/** A block as the lifecycle runs it: its cells, log stem and context, and the kind's step over them. */
export interface BlockRun<C = unknown> {
  lifecycle: BlockLifecycle;
  step: MeasurementStep<C>;
}

/** For a kind that runs engines and proxies: what the preflight finds its plan's engines and proxies with. */
type PreflightNeeds = {
  settings: Parameters<typeof preflight>[1];
  getEngine: Parameters<typeof preflight>[2];
};

/** A kind of measurement: what the driver asks of it, in the order it asks. */
export interface MeasurementKind<Request, Planned, Ready extends ReadyMeasurement, Outcome> {
  /** Settings with the kind's defaults, the plan, the results folder refused when used; nothing started. */
  plan(request: Request): Promise<Planned & { plan: Plan }>;
  /** What the preflight checks the plan with, before anything starts (absent: the kind checks its own). */
  preflight?(planned: Planned): PreflightNeeds;
  /** Everything else measuring needs, checked before anything starts, and the results document. */
  prepare(planned: Planned, found: PreflightResult): Ready | Promise<Ready>;
  /** After the session: what is printed, the outcome. */
  finish(ready: Ready): Outcome | Promise<Outcome>;
  /** For --dry-run: the plan's text, once checked as the run checks it before starting anything. */
  describe(planned: Planned): string | Promise<string>;
}

/** A kind's dry run: its plan, refused where the run would refuse it, described; nothing started or written. */
export async function dryRunMeasurement<Request, Planned>(
  kind: Pick<MeasurementKind<Request, Planned, never, unknown>, "plan" | "describe">,
  request: Request,
  out: Out,
): Promise<void> {
  out.write(await kind.describe(await kind.plan(request)));
}

export async function runMeasurement<Request, Planned, Ready extends ReadyMeasurement, Outcome>(
  kind: MeasurementKind<Request, Planned, Ready, Outcome>,
  request: Request,
): Promise<Outcome> {
  const planned = await kind.plan(request);
  const needs = kind.preflight?.(planned);
  const found: PreflightResult = needs
    ? await preflight(planned.plan, needs.settings, needs.getEngine)
    : { tools: {}, binaries: new Map() };
  const ready = await kind.prepare(planned, found);
  await withRunSession(ready.session, async (session) => {
    for (const block of planned.plan.blocks) {
      const run = ready.blockRun(block, session);
      if (run) await runBlockLifecycle(run.lifecycle, run.step);
    }
    ready.settle?.();
    await session.save();
  });
  return kind.finish(ready);
}

/**
 * A measuring run (wall-clock, counted, max-rate) from its first save to its last, ending alike
 * for all. Done: every process stopped. An error: every process stopped, the results saved as
 * they stand, the error thrown. SIGINT/SIGTERM: what runs learns of it at once (`signal`), every
 * process is stopped, the results kept and saved, a line says where, exit 130 (143 on SIGTERM).
 */
export interface RunSession {
  signal: AbortSignal;
  isInterrupted: () => boolean;
  save: () => Promise<void>;
}

interface SessionSpec {
  /** The results, each save writing them as they stand, in this order (`final`: later saves are ignored); none: each measurement writes its own. */
  documents?: readonly SavedDocument[];
  /** False: SIGINT/SIGTERM are left alone (tests). */
  handleSignals?: boolean | undefined;
  /** However the run ends, once its processes are stopped (the progress line, the run's ledger). */
  close?: () => void;
  /** On SIGINT/SIGTERM, before the last save: what of the results is kept, and the line saying so. */
  interrupted: () => string;
  say: (line: string) => void;
}

/** The measurement in a session, after a first save; on a signal it never returns (the process exits). */
async function withRunSession(spec: SessionSpec, measure: (s: RunSession) => Promise<void>): Promise<void> {
  const abort = new AbortController();
  const save = async (final = false) => {
    for (const document of spec.documents ?? []) await document.save(final);
  };
  const flag = () => abort.abort();
  const listen = spec.handleSignals !== false;
  if (listen) for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, flag);
  const removeHandler = !listen
    ? () => undefined
    : onInterrupt(async () => {
        spec.close?.();
        const line = spec.interrupted();
        await save(true);
        spec.say(`\n${line}`);
      });
  const session = { signal: abort.signal, isInterrupted: () => abort.signal.aborted, save: () => save() };
  const end = async () => {
    await stopAll();
    spec.close?.();
    for (const signal of ["SIGINT", "SIGTERM"]) process.off(signal, flag);
    removeHandler();
  };
  try {
    await save();
    await measure(session);
  } catch (err) {
    if (!session.isInterrupted()) {
      await end();
      await save().catch(() => undefined);
      throw err;
    }
  }
  if (session.isInterrupted()) return new Promise<never>(() => undefined);
  await end();
}
