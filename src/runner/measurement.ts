import type { Block } from "./plan.js";
import { withRunSession, type RunSession, type SessionSpec } from "./session.js";

/**
 * The one driver of every kind of measurement (wall clock: measures/wall-clock/run.ts; counted:
 * measures/counted/run.ts; max-rate: measures/max-rate/run.ts): the kind plans (its settings with
 * its defaults, the plan, the results folder refused when used), makes ready (tools, runtime,
 * environment, the results document and its save), then its blocks run in one session, each
 * the block lifecycle with the kind's step, and the kind finishes.
 */

/** Where a measurement, or its dry run, writes its text (stdout; a test's buffer). */
export type Out = { write(text: string): unknown };

/** A measurement made ready to start: its session's saves and its blocks. */
export interface ReadyMeasurement {
  session: SessionSpec;
  blocks: readonly Block[];
  /** One block of the plan, in the session: the block lifecycle with the kind's step. */
  runBlock(block: Block, session: RunSession): Promise<void>;
  /** After the last block, still in the session. */
  afterBlocks?(session: RunSession): Promise<void>;
}

/** A kind of measurement: what the driver asks of it, in the order it asks. */
export interface MeasurementKind<Request, Planned, Ready extends ReadyMeasurement, Outcome> {
  /** Settings with the kind's defaults, the plan, the results folder refused when used; nothing started. */
  plan(request: Request): Promise<Planned>;
  /** Everything measuring needs, checked before anything starts, and the results document. */
  prepare(planned: Planned, request: Request): Promise<Ready>;
  /** After the session: the last save, what is printed, the outcome. */
  finish(ready: Ready): Promise<Outcome>;
}

export async function runMeasurement<Request, Planned, Ready extends ReadyMeasurement, Outcome>(
  kind: MeasurementKind<Request, Planned, Ready, Outcome>,
  request: Request,
): Promise<Outcome> {
  const ready = await kind.prepare(await kind.plan(request), request);
  await withRunSession(ready.session, async (session) => {
    for (const block of ready.blocks) await ready.runBlock(block, session);
    await ready.afterBlocks?.(session);
  });
  return kind.finish(ready);
}
