import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { PROJECT_ROOT } from "../../../src/util/paths.js";
import { runCommand } from "../../../src/util/processes.js";

/**
 * The committed Go code of upstream/pingpong/pingpong.proto is what the pinned generator
 * (scripts/setup.sh --for-tests) makes of it today: regenerated into a temporary folder and
 * compared file by file.
 */

const GENERATED = [
  "upstream/pingpong/pingpong.pb.go",
  "upstream/pingpong/pingpong_grpc.pb.go",
  "proxies/grpc-gateway/pingpong/pingpong.pb.go",
  "proxies/grpc-gateway/pingpong/pingpong_grpc.pb.go",
  "proxies/grpc-gateway/pingpong/pingpong.pb.gw.go",
  "studies/grpc-gateway/scenarios/pingpong-grpc/pingpong.protoset",
];

let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "proxybench-proto-"));
  const { code, output } = await runCommand(
    "bash",
    [path.join(PROJECT_ROOT, "scripts/generate-proto.sh"), dir],
    {
      timeoutMs: 60_000,
    },
  );
  if (code !== 0) throw new Error(`scripts/generate-proto.sh failed (${code}):\n${output}`);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("generated protobuf code", () => {
  it.each(GENERATED)("%s is current (else run scripts/generate-proto.sh and commit)", async (file) => {
    const fresh = await readFile(path.join(dir, file));
    const committed = await readFile(path.join(PROJECT_ROOT, file));
    expect(committed.equals(fresh)).toBe(true);
  });

  it("records the pinned generator versions", async () => {
    const setup = await readFile(path.join(PROJECT_ROOT, "scripts/setup.sh"), "utf8");
    const pinned = (name: string) => new RegExp(`^${name}=(\\S+)$`, "m").exec(setup)?.[1];
    const pb = await readFile(path.join(PROJECT_ROOT, GENERATED[0]!), "utf8");
    const grpc = await readFile(path.join(PROJECT_ROOT, GENERATED[1]!), "utf8");
    expect(pb).toContain(`// \tprotoc-gen-go ${pinned("PROTOC_GEN_GO_VERSION")}\n`);
    expect(grpc).toContain(`// - protoc-gen-go-grpc ${pinned("PROTOC_GEN_GO_GRPC_VERSION")}\n`);
  });
});
