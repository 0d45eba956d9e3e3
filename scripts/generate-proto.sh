#!/usr/bin/env bash
# Generates the Go code of upstream/pingpong/pingpong.proto (the gRPC-gateway study's service):
#   upstream/pingpong/              messages and the gRPC server (package proxybench/upstream/pingpong)
#   proxies/grpc-gateway/pingpong/  messages, the gRPC client and the REST gateway
#                                   (package proxybench/grpc-gateway/pingpong)
#   studies/grpc-gateway/scenarios/pingpong-grpc/pingpong.protoset
#                                   the descriptor set k6 loads (the scenario's `protoset`)
# with protoc from grpcio-tools and google/api/*.proto from googleapis-common-protos (both in
# .tools/venv) and the Go plugins in .tools/bin, all pinned by scripts/setup.sh --for-tests.
#
#   scripts/generate-proto.sh          writes the committed files
#   scripts/generate-proto.sh OUTDIR   writes the same tree under OUTDIR (the test compares)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${1:-$root}" && cd "${1:-$root}" && pwd)
bin="$root/.tools/bin"
python="$root/.tools/venv/bin/python"

for tool in protoc-gen-go protoc-gen-go-grpc protoc-gen-grpc-gateway; do
  [ -x "$bin/$tool" ] || { echo "generate-proto.sh: $bin/$tool is missing: run 'npm run setup -- --for-tests'" >&2; exit 1; }
done
includes=$("$python" - <<'PY' 2>/dev/null
import os, grpc_tools, google.api
print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))
print(os.path.dirname(os.path.dirname(next(iter(google.api.__path__)))))
PY
) || { echo "generate-proto.sh: grpcio-tools or googleapis-common-protos missing in .tools/venv: run 'npm run setup -- --for-tests'" >&2; exit 1; }
mapfile -t include_dirs <<<"$includes"

protoc() {
  (cd "$root/upstream/pingpong" && PATH="$bin:$PATH" "$python" -m grpc_tools.protoc -I . \
    -I "${include_dirs[0]}" -I "${include_dirs[1]}" "$@" pingpong.proto)
}

scenario=studies/grpc-gateway/scenarios/pingpong-grpc
mkdir -p "$out/upstream/pingpong" "$out/proxies/grpc-gateway/pingpong" "$out/$scenario"
protoc --include_imports --descriptor_set_out="$out/$scenario/pingpong.protoset"
protoc --go_out="$out/upstream/pingpong" --go_opt=paths=source_relative \
  --go-grpc_out="$out/upstream/pingpong" --go-grpc_opt=paths=source_relative
gateway=Mpingpong.proto=proxybench/grpc-gateway/pingpong
protoc --go_out="$out/proxies/grpc-gateway/pingpong" --go_opt=paths=source_relative,$gateway \
  --go-grpc_out="$out/proxies/grpc-gateway/pingpong" --go-grpc_opt=paths=source_relative,$gateway \
  --grpc-gateway_out="$out/proxies/grpc-gateway/pingpong" --grpc-gateway_opt=paths=source_relative,$gateway
