/**
 * Feedback during a run: on a terminal one progress line (cell, repetition, elapsed, ETA)
 * redrawn in place; elsewhere (CI, a pipe) plain lines.
 */

export interface ProgressState {
  label: string;
  /** 1-based; 0 for the warm-up, -1 for the start-up checks (ready, probe). */
  rep: number;
  reps: number;
  elapsedS: number;
  /** undefined until something finished. */
  etaS: number | undefined;
}

export function formatDuration(seconds: number): string {
  const s = Math.max(0, Math.round(seconds));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${sec}` : `${m}:${sec}`;
}

/** Pure: the progress line. */
export function formatProgress(p: ProgressState): string {
  const rep = p.rep < 0 ? "probe" : p.rep === 0 ? "warm-up" : `rep ${p.rep}/${p.reps}`;
  const eta = p.etaS === undefined ? "" : `  ETA ${formatDuration(p.etaS)}`;
  return `${p.label}  ${rep}  elapsed ${formatDuration(p.elapsedS)}${eta}`;
}

/** Pure: remaining time from the planned seconds done so far and the time it took. */
export function estimateRemaining(elapsedS: number, doneS: number, totalS: number): number | undefined {
  if (doneS <= 0 || elapsedS <= 0) return undefined;
  return Math.max(0, (elapsedS / doneS) * (totalS - doneS));
}

export interface ProgressStream {
  write(text: string): boolean;
  isTTY?: boolean;
  /** Terminal width: the redrawn line is cut to it (a wrapped line could not be redrawn). */
  columns?: number;
}

export class Progress {
  private readonly started = Date.now();
  private doneS = 0;
  private current: Omit<ProgressState, "elapsedS" | "etaS"> | undefined;
  private drawn = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: ProgressStream,
    private totalS: number,
    private readonly tty = stream.isTTY === true,
  ) {}

  /** A line that stays (above the progress line on a terminal). */
  line(text: string): void {
    this.clear();
    this.stream.write(`${text}\n`);
    this.draw();
  }

  /** What is running now. */
  step(label: string, rep: number, reps: number): void {
    this.current = { label, rep, reps };
    if (this.tty) {
      this.draw();
      this.timer ??= setInterval(() => this.draw(), 1000).unref();
    } else {
      this.stream.write(`${formatProgress(this.state())}\n`);
    }
  }

  /** `seconds` of planned load are done (or will not run). */
  advance(seconds: number): void {
    this.doneS += seconds;
  }

  /** Fewer seconds to run than planned (cells that stopped early). */
  drop(seconds: number): void {
    this.totalS = Math.max(this.doneS, this.totalS - seconds);
  }

  finish(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.clear();
    this.current = undefined;
  }

  private state(): ProgressState {
    const elapsedS = (Date.now() - this.started) / 1000;
    return {
      ...(this.current ?? { label: "", rep: 0, reps: 0 }),
      elapsedS,
      etaS: estimateRemaining(elapsedS, this.doneS, this.totalS),
    };
  }

  private draw(): void {
    if (!this.tty || !this.current) return;
    const width = Math.max(20, (this.stream.columns ?? 200) - 1);
    this.stream.write(`\r\x1b[2K${formatProgress(this.state()).slice(0, width)}`);
    this.drawn = true;
  }

  private clear(): void {
    if (this.tty && this.drawn) this.stream.write("\r\x1b[2K");
    this.drawn = false;
  }
}
