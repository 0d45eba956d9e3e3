import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";
import { UserError } from "./util/errors.js";
import { VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("proxybench")
    .description("Benchmark reverse proxies and API gateways: repeated, interleaved, validated runs.")
    .version(VERSION)
    .showHelpAfterError("(run with --help for usage)")
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI and returns the exit code; errors a user can fix print without a stack. */
export async function main(argv: string[]): Promise<number> {
  process.exitCode = 0;
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof UserError) {
      process.stderr.write(`proxybench: ${err.message}\n`);
      return err.exitCode;
    }
    process.stderr.write(`proxybench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
