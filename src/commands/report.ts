import type { Command } from "commander";
import { UserError } from "../util/errors.js";

export function register(program: Command): void {
  program
    .command("report")
    .description("(not available yet)")
    .action(() => {
      throw new UserError("'report' is not available yet");
    });
}
