import type { Command } from "commander";
import { UserError } from "../util/errors.js";

export function register(program: Command): void {
  program
    .command("compare")
    .description("(not available yet)")
    .action(() => {
      throw new UserError("'compare' is not available yet");
    });
}
