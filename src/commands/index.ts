import type { Command } from "commander";
import { register as changes } from "./changes.js";
import { register as compare } from "./compare.js";
import { register as containers } from "./containers.js";
import { register as count } from "./count.js";
import { register as comment } from "./comment.js";
import { register as doctor } from "./doctor.js";
import { register as images } from "./images.js";
import { register as issues } from "./issues.js";
import { register as list } from "./list.js";
import { register as maxRate } from "./max-rate.js";
import { register as publish } from "./publish.js";
import { register as report } from "./report.js";
import { register as run } from "./run.js";
import { register as shards } from "./shards.js";
import { register as study } from "./study.js";

/** Every subcommand; each module adds itself to the program. */
export const commands: ReadonlyArray<(program: Command) => void> = [
  run,
  count,
  study,
  maxRate,
  list,
  doctor,
  report,
  compare,
  publish,
  changes,
  comment,
  issues,
  images,
  containers,
  shards,
];
