import { appendFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { imageContexts } from "../manifests/image-contexts.js";
import { coprocessorImageContexts } from "../measures/study/extensibility/coprocessors.js";
import { UserError } from "../util/errors.js";
import { addFlags, option, ownFlag, type FlagValues } from "./options.js";

interface ImagesFlags extends Pick<FlagValues, "proxiesDir" | "study"> {
  proxies: string[];
  githubOutput?: string;
}

/**
 * `proxybench images`: the folder each proxy's image is built from, for `docker buildx bake`;
 * with `--study`, also each coprocessor's the study starts from an image.
 */
export function register(program: Command): void {
  const command = program
    .command("images")
    .description(
      "The folder each proxy's image is built from: a --proxies-dir's folder of that name, else the built-in one; with --study, each coprocessor's too",
    );
  addFlags(command, [
    option("proxies", null).makeOptionMandatory(),
    ownFlag(
      "proxiesDir",
      "folder of <name>/proxy.yml beside the built-in proxies; one of the same name replaces the built-in (repeatable); a folder that does not exist adds nothing (a base checkout that predates it)",
    ),
    ownFlag(
      "study",
      "also the images of the coprocessors the study runs under --runtime docker (extensibility)",
    ),
  ])
    .option(
      "--github-output <name>",
      "append NAME=<JSON object of proxy -> folder> (the bake file's PROXY_CONTEXTS) and NAME-coprocessors=<JSON object of coprocessor -> folder> (its COPROCESSOR_CONTEXTS) to the file $GITHUB_OUTPUT names",
    )
    .action(async (flags: ImagesFlags) => {
      const dirs = (flags.proxiesDir ?? []).map((d) => path.resolve(d));
      const contexts = await imageContexts(flags.proxies, { proxiesDirs: dirs });
      const coprocessors = flags.study === undefined ? {} : await coprocessorImageContexts(flags.study);
      if (flags.githubOutput === undefined) {
        for (const [name, dir] of Object.entries(contexts)) process.stdout.write(`${name}\t${dir}\n`);
        for (const [name, dir] of Object.entries(coprocessors))
          process.stdout.write(`coprocessor-${name}\t${dir}\n`);
        return;
      }
      const file = process.env.GITHUB_OUTPUT;
      if (!file)
        throw new UserError("--github-output: GITHUB_OUTPUT is not set (it is, in a GitHub Actions step)");
      await appendFile(
        file,
        `${flags.githubOutput}=${JSON.stringify(contexts)}\n` +
          `${flags.githubOutput}-coprocessors=${JSON.stringify(coprocessors)}\n`,
      );
    });
}
