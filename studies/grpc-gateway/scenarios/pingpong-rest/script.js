// pingpong-rest: POST /ping over HTTP/1.1. Requests, checks and load come from scenario.yml (passed
// by proxybench in PROXYBENCH_CONFIG); the logic is shared in scenarios/lib/proxybench.js.
import { checkTarget, iteration, makeOptions, summary } from "../../../../scenarios/lib/proxybench.js";

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
