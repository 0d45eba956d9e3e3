// pingpong-grpc: PingPong's Ping over gRPC. Calls, checks and load come from scenario.yml (passed
// by proxybench in PROXYBENCH_CONFIG); the logic is shared in scenarios/lib/proxybench-grpc.js.
import { checkTarget, iteration, makeOptions, summary } from "../../../../scenarios/lib/proxybench-grpc.js";

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
