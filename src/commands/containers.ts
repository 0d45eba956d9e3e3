import type { Command } from "commander";
import {
  listContainersArgs,
  parseContainerList,
  removeRunContainers,
  runIdFrom,
} from "../runner/docker-runtime.js";
import { UserError } from "../util/errors.js";
import { findExecutable } from "../util/paths.js";
import { runCommand } from "../util/processes.js";
import { textFlag } from "./options.js";

interface ContainersFlags {
  run?: string;
  remove?: boolean;
  docker: string;
}

/**
 * `proxybench containers`: the containers of `run --runtime docker` (label org.proxybench.run),
 * and `--remove` for one run's, which the run action calls after the run however it ended: a
 * cancelled or timed-out job signals the shell, not proxybench, whose own cleanup then never runs.
 */
export function register(program: Command): void {
  program
    .command("containers")
    .description("List the containers of docker runs, or remove one run's (--remove)")
    .addOption(textFlag("--run <id>", "the run's id (label org.proxybench.run)", "$PROXYBENCH_RUN_ID"))
    .option("--remove", "remove every container of that run, running or not")
    .option("--docker <path>", "the docker executable", "docker")
    .action(async (flags: ContainersFlags, command: Command) => {
      if (!(await findExecutable(flags.docker))) {
        // A --docker typed wrong is bad input; docker missing from this machine, a missing tool.
        const typed = command.getOptionValueSource("docker") === "cli";
        throw new UserError(`--docker ${flags.docker}: not found or not executable`, typed ? 2 : 1);
      }
      const runId = flags.run ?? (process.env.PROXYBENCH_RUN_ID ? runIdFrom(process.env) : undefined);
      if (flags.remove) {
        if (runId === undefined) throw new UserError("--remove needs the run: --run ID or PROXYBENCH_RUN_ID");
        const removed = await removeRunContainers(flags.docker, runId);
        process.stdout.write(
          removed.length > 0
            ? `removed ${removed.length} container(s) of run ${runId}: ${removed.join(", ")}\n`
            : `no container of run ${runId} left\n`,
        );
        return;
      }
      const listed = await runCommand(flags.docker, listContainersArgs(runId), { timeoutMs: 30_000 });
      if (listed.code !== 0) throw new UserError(`docker ps failed: ${listed.output.trim()}`);
      for (const c of parseContainerList(listed.output)) {
        const owner = c.owner ? `${c.owner.host}:${c.owner.pid}` : "-";
        process.stdout.write(
          `${c.name}\trun ${c.run}\tprocess ${owner}\tcores ${c.cpus.join(",") || "any"}\n`,
        );
      }
    });
}
