#!/bin/sh
# A stand-in for the docker client whose "containers" are processes on this machine (there is
# no Docker engine here): `run` starts its entrypoint and arguments here, with the run's
# environment, folder and cores, ignoring the image and its isolation; `exec NAME CMD ... 1`
# runs CMD here on the container's first process (its pid 1 becomes that process's pid).
# `run --rm` (valgrind --version) runs in the foreground. Images named in $HOST_DOCKER_MISSING
# (space-separated) are missing. Every call is appended to $HOST_DOCKER_STATE/calls.
set -eu
state=${HOST_DOCKER_STATE:?}
echo "$*" >>"$state/calls"
cmd=$1
shift
case "$cmd" in
  version) echo "28.2.2" ;;
  ps) exit 0 ;;
  run)
    detach=no name="" entrypoint="" workdir="" cpus=""
    env_file="$state/env.$$"
    : >"$env_file"
    while [ $# -gt 0 ]; do
      case "$1" in
        --detach) detach=yes; shift ;;
        --init | --rm) shift ;;
        --name) name=$2; shift 2 ;;
        --entrypoint) entrypoint=$2; shift 2 ;;
        --workdir) workdir=$2; shift 2 ;;
        --cpuset-cpus) cpus=$2; shift 2 ;;
        --env) printf '%s\n' "$2" >>"$env_file"; shift 2 ;;
        --*) shift 2 ;;
        *) break ;;
      esac
    done
    image=$1
    shift
    for missing in ${HOST_DOCKER_MISSING:-}; do
      if [ "$image" = "$missing" ]; then
        echo "Unable to find image '$image' locally" >&2
        echo "docker: Error response from daemon: No such image: $image" >&2
        exit 125
      fi
    done
    [ -n "$entrypoint" ] || { echo "host-docker: only --entrypoint runs are supported" >&2; exit 2; }
    # The run's --env values, exported for the command (one KEY=VALUE per line).
    while IFS= read -r pair; do export "${pair?}"; done <"$env_file"
    rm -f "$env_file"
    [ -z "$workdir" ] || cd "$workdir"
    pin=""
    [ -z "$cpus" ] || pin="taskset -c $cpus"
    if [ "$detach" = no ]; then exec $pin "$entrypoint" "$@"; fi
    $pin "$entrypoint" "$@" >"$state/$name.log" 2>&1 &
    echo $! >"$state/$name.pid"
    echo "c0ffee$name"
    ;;
  logs)
    name=$2
    exec tail --pid="$(cat "$state/$name.pid")" -s 0.1 -n +1 -f "$state/$name.log"
    ;;
  exec)
    name=$1
    shift
    pid=$(cat "$state/$name.pid")
    last=""
    for a in "$@"; do last=$a; done
    [ "$last" = 1 ] || { echo "host-docker: exec expects pid 1 last" >&2; exit 2; }
    # every argument but the last, then the host pid in its place
    n=$#
    i=0
    for a in "$@"; do
      i=$((i + 1))
      shift
      [ "$i" -lt "$n" ] && set -- "$@" "$a"
    done
    exec "$@" "$pid"
    ;;
  inspect)
    format=$2
    name=$3
    case "$format" in
      *Pid*) cat "$state/${name#c0ffee}.pid" ;;
      *) echo 0 ;;
    esac
    ;;
  stop)
    name=$3
    pid=$(cat "$state/$name.pid")
    kill -TERM "$pid" 2>/dev/null || true
    i=0
    while kill -0 "$pid" 2>/dev/null && [ "$i" -lt 200 ]; do sleep 0.05; i=$((i + 1)); done
    kill -KILL "$pid" 2>/dev/null || true
    ;;
  rm)
    for name in "$@"; do
      [ "$name" = "--force" ] && continue
      [ -f "$state/$name.pid" ] && kill -KILL "$(cat "$state/$name.pid")" 2>/dev/null || true
    done
    ;;
  *) echo "host-docker: $cmd is not supported" >&2; exit 2 ;;
esac
