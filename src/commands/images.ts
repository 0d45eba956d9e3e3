import { appendFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { imageContexts } from "../runner/image-contexts.js";
import { UserError } from "../util/errors.js";
import { collect, parseCsv } from "./options.js";

interface ImagesFlags {
  proxies: string[];
  proxiesDir?: string[];
  githubOutput?: string;
}

/** `proxybench images`: the folder each proxy's image is built from, for `docker buildx bake`. */
export function register(program: Command): void {
  program
    .command("images")
    .description(
      "The folder each proxy's image is built from: a --proxies-dir's folder of that name, else the built-in one",
    )
    .requiredOption("-p, --proxies <names>", "comma-separated proxies", parseCsv)
    .option(
      "--proxies-dir <dir>",
      "folder of proxies/<name>/ overriding built-ins by name (repeatable)",
      collect,
    )
    .option(
      "--github-output <name>",
      "append NAME=<JSON object of proxy -> folder> to the file $GITHUB_OUTPUT names (the bake file's PROXY_CONTEXTS)",
    )
    .action(async (flags: ImagesFlags) => {
      const dirs = (flags.proxiesDir ?? []).map((d) => path.resolve(d));
      const contexts = await imageContexts(flags.proxies, { proxiesDirs: dirs });
      if (flags.githubOutput === undefined) {
        for (const [name, dir] of Object.entries(contexts)) process.stdout.write(`${name}\t${dir}\n`);
        return;
      }
      const file = process.env.GITHUB_OUTPUT;
      if (!file)
        throw new UserError("--github-output: GITHUB_OUTPUT is not set (it is, in a GitHub Actions step)");
      await appendFile(file, `${flags.githubOutput}=${JSON.stringify(contexts)}\n`);
    });
}
