// Entry point of the bundled action (report/dist/index.js).
import { run } from "./run.js";

await run();
