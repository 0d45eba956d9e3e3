import type { Command } from "commander";
import { UserError } from "../util/errors.js";

export function register(program: Command): void {
  program
    .command("list")
    .description("(not available yet)")
    .action(() => {
      throw new UserError("'list' is not available yet");
    });
}
