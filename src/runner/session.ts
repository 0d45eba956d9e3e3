import { onInterrupt, stopAll } from "../util/processes.js";

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

export interface SessionSpec {
  /** Writes the results as they stand (`final`: later saves are ignored); absent: each measurement writes its own. */
  save?: (final: boolean) => Promise<void>;
  /** False: SIGINT/SIGTERM are left alone (tests). */
  handleSignals?: boolean | undefined;
  /** However the run ends, once its processes are stopped (the progress line, the run's ledger). */
  close?: () => void;
  /** On SIGINT/SIGTERM, before the last save: what of the results is kept, and the line saying so. */
  interrupted: () => string;
  say: (line: string) => void;
}

/** The measurement in a session, after a first save; on a signal it never returns (the process exits). */
export async function withRunSession<R>(
  spec: SessionSpec,
  measure: (s: RunSession) => Promise<R>,
): Promise<R> {
  const abort = new AbortController();
  const save = async (final = false) => spec.save?.(final);
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
  let outcome: R;
  try {
    await save();
    outcome = await measure(session);
  } catch (err) {
    if (!session.isInterrupted()) {
      await end();
      await save().catch(() => undefined);
      throw err;
    }
  }
  if (session.isInterrupted()) return new Promise<never>(() => undefined);
  await end();
  return outcome!;
}
