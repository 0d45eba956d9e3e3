import type { Command } from "commander";
import { UserError } from "../util/errors.js";

export function register(program: Command): void {
  program
    .command("comment")
    .description("(not available yet)")
    .action(() => {
      throw new UserError("'comment' is not available yet");
    });
}
