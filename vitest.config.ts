import { defineConfig } from "vitest/config";

// Integration tests start real processes (k6, nginx, haproxy, the upstream) pinned to the
// machine's few cores: run test files one at a time so they do not measure each other.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ["default"],
  },
});
