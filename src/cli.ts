import { Command, CommanderError } from "commander";
import { commands } from "./commands/index.js";
import { describeOption } from "./commands/options.js";
import { UserError } from "./util/errors.js";
import { VERSION } from "./version.js";

export function buildProgram(): Command {
  const program = new Command("proxybench")
    .description("Benchmark reverse proxies and API gateways: repeated, interleaved, validated runs.")
    .version(VERSION)
    .option("--debug", "print the stack of an error")
    .showHelpAfterError("(run with --help for usage)")
    // Set before the commands are added: each inherits it.
    .configureHelp({ optionDescription: describeOption })
    .exitOverride();
  for (const register of commands) register(program);
  return program;
}

/** Runs the CLI and returns the exit code; errors a user can fix print without a stack. */
export async function main(argv: string[]): Promise<number> {
  process.exitCode = 0;
  const debug = argv.includes("--debug");
  try {
    await buildProgram().parseAsync(argv);
    return typeof process.exitCode === "number" ? process.exitCode : 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    process.stderr.write(`proxybench: ${errorText(err, debug)}\n`);
    return err instanceof UserError ? err.exitCode : 1;
  }
}

/** An error as the user sees it: its message; the stack only with --debug. */
export function errorText(err: unknown, debug: boolean): string {
  if (!(err instanceof Error)) return String(err);
  if (debug) return err.stack ?? err.message;
  return err instanceof UserError ? err.message : `${err.message} (run with --debug for the stack)`;
}
