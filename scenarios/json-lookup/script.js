// json-lookup: 5 country lookups per iteration. Requests, checks and load come from scenario.yml
// (passed by proxybench in PROXYBENCH_CONFIG); the logic is shared in ../lib/proxybench.js.
import { checkTarget, iteration, makeOptions, summary } from "../lib/proxybench.js";

export const options = makeOptions();

export function setup() {
  checkTarget();
}

export default function () {
  iteration();
}

export function handleSummary(data) {
  return summary(data);
}
