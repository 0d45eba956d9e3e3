import { vi } from "vitest";
import { main } from "../../../src/cli.js";

/** `proxybench WORDS` in this process, as the CLI runs it: its exit code and everything it printed. */
export async function runCli(words: string[]): Promise<{ code: number; out: string }> {
  let out = "";
  const capture = (chunk: string | Uint8Array) => {
    out += String(chunk);
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, "write").mockImplementation(capture),
    vi.spyOn(process.stderr, "write").mockImplementation(capture),
  ];
  try {
    return { code: await main(["node", "proxybench", ...words]), out };
  } finally {
    for (const spy of spies) spy.mockRestore();
    process.exitCode = 0;
  }
}
