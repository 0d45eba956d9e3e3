import { open, readFile, writeFile, type FileHandle } from "node:fs/promises";

/**
 * The peak memory of a container over a repetition, where the cgroup's own peak is a running
 * maximum since the container started. A reset starts it over, the kernel's way where it allows
 * one, else by sampling:
 * - cgroup v2 since Linux 6.12: a write to memory.peak starts the peak over for reads through
 *   the same open file (the file stays open between resets);
 * - cgroup v1: `0` into memory.max_usage_in_bytes (root);
 * - otherwise: the highest memory.current (v1 memory.usage_in_bytes) read every SAMPLE_MS
 *   through the window, and once more when it is read. A spike shorter than that can be missed;
 *   a level the proxy holds cannot.
 * Before the first reset it reads the running maximum.
 */

const SAMPLE_MS = 50;

export interface WindowPeak {
  /** Bytes: since the last reset, or since the container started before any. */
  read(): Promise<number | undefined>;
  /** Starts the peak over from now. False when neither way works (no counter to read). */
  reset(): Promise<boolean>;
  /** Stops sampling and closes the kept file. */
  close(): Promise<void>;
}

function filesOf(folder: string, version: 1 | 2) {
  return version === 2
    ? { peak: `${folder}/memory.peak`, current: `${folder}/memory.current` }
    : { peak: `${folder}/memory.max_usage_in_bytes`, current: `${folder}/memory.usage_in_bytes` };
}

/** A file holding one whole number (memory.peak, cpuacct.usage) (pure). */
export function parseCount(text: string): number | undefined {
  const trimmed = text.trim();
  return /^\d+$/.test(trimmed) ? Number(trimmed) : undefined;
}

const readBytes = (file: string): Promise<number | undefined> =>
  readFile(file, "utf8").then(parseCount, () => undefined);

async function readThrough(handle: FileHandle): Promise<number | undefined> {
  const buffer = Buffer.alloc(64);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return parseCount(buffer.toString("utf8", 0, bytesRead));
}

/** Whether a write (a reset, a /proc control file) went through. */
export function succeeds(write: Promise<unknown>): Promise<boolean> {
  return write.then(
    () => true,
    () => false,
  );
}

/** v2: memory.peak opened for writing and reset through that file; undefined where refused. */
async function kernelResetV2(file: string): Promise<FileHandle | undefined> {
  const handle = await open(file, "r+").catch(() => undefined);
  if (handle === undefined) return undefined;
  if ((await succeeds(handle.write("reset\n", 0))) && (await readThrough(handle)) !== undefined)
    return handle;
  await handle.close().catch(() => undefined);
  return undefined;
}

/** A running maximum of a counter read every `everyMs`; it stops when the counter is gone. */
class Sampler {
  private max = 0;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly file: string,
    private readonly everyMs: number,
  ) {}

  async start(): Promise<boolean> {
    const now = await readBytes(this.file);
    if (now === undefined) return false;
    this.max = now;
    this.timer ??= setInterval(() => void this.sample(), this.everyMs).unref();
    return true;
  }

  async peak(): Promise<number | undefined> {
    await this.sample();
    return this.timer === undefined ? undefined : this.max;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** A reading that cannot be parsed is skipped; a counter that is gone (the container) stops it. */
  private async sample(): Promise<void> {
    const text = await readFile(this.file, "utf8").catch(() => undefined);
    const now = text === undefined ? undefined : parseCount(text);
    if (text === undefined) this.stop();
    else if (now !== undefined) this.max = Math.max(this.max, now);
  }
}

export function windowPeak(folder: string, version: 1 | 2, sampleMs = SAMPLE_MS): WindowPeak {
  const files = filesOf(folder, version);
  let mode: "running" | "kernel" | "sampled" = "running";
  let handle: FileHandle | undefined;
  const sampler = new Sampler(files.current, sampleMs);
  const kernelReset = async (): Promise<boolean> => {
    if (version === 1) return succeeds(writeFile(files.peak, "0"));
    if (handle === undefined) {
      handle = await kernelResetV2(files.peak); // opening it resets it once
      return handle !== undefined;
    }
    return succeeds(handle.write("reset\n", 0));
  };
  return {
    async read() {
      if (mode === "sampled") return sampler.peak();
      return handle !== undefined ? readThrough(handle).catch(() => undefined) : readBytes(files.peak);
    },
    async reset() {
      if (mode !== "sampled" && (await kernelReset())) {
        mode = "kernel";
        return true;
      }
      mode = "sampled";
      return sampler.start();
    },
    async close() {
      sampler.stop();
      await handle?.close().catch(() => undefined);
      handle = undefined;
    },
  };
}
