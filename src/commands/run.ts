import type { Command } from "commander";
import { UserError } from "../util/errors.js";

export function register(program: Command): void {
  program
    .command("run")
    .description("(not available yet)")
    .action(() => {
      throw new UserError("'run' is not available yet");
    });
}
