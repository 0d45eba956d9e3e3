import type { Command } from "commander";
import { UserError } from "../util/errors.js";

export function register(program: Command): void {
  program
    .command("publish")
    .description("(not available yet)")
    .action(() => {
      throw new UserError("'publish' is not available yet");
    });
}
