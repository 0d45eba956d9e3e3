import type { Command } from "commander";
import { UserError } from "../util/errors.js";

export function register(program: Command): void {
  program
    .command("doctor")
    .description("(not available yet)")
    .action(() => {
      throw new UserError("'doctor' is not available yet");
    });
}
