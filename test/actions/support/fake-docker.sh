#!/bin/sh
# A stand-in for the docker client and engine (this machine has no engine), just enough for
# DockerRuntime's lifecycle: run --detach starts a "container" (a shell process whose output goes
# to a file), logs --follow tails that file until the process ends, inspect reports its exit code,
# stop sends TERM, rm --force kills and forgets it. Every call is appended to $FAKE_DOCKER_STATE/calls.
set -eu
state=${FAKE_DOCKER_STATE:?}
echo "$*" >>"$state/calls"
cmd=$1
shift
case "$cmd" in
  version) echo "28.2.2" ;;
  run)
    name=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --detach | --init) shift ;;
        --name) name=$2; shift 2 ;;
        --*) shift 2 ;;
        *) break ;;
      esac
    done
    image=$1
    shift
    [ "$image" = "missing/image:local" ] && { echo "docker: Error response from daemon: No such image: $image" >&2; exit 125; }
    printf '%s\n' "$@" >"$state/$name.args"
    # The container: prints its arguments, then serves until TERM (exit 0) or its own end.
    (
      trap 'echo "got TERM"; echo 0 >"$state/$name.exit"; exit 0' TERM
      echo "container $name started: $*"
      echo "on stderr" >&2
      if [ "${1:-}" = "crash" ]; then echo 3 >"$state/$name.exit"; exit 3; fi
      while :; do sleep 0.05; done
    ) >"$state/$name.log" 2>&1 &
    echo $! >"$state/$name.pid"
    echo "c0ffee$name"
    ;;
  logs)
    name=$2
    exec tail --pid="$(cat "$state/$name.pid")" -s 0.1 -n +1 -f "$state/$name.log"
    ;;
  inspect)
    format=$2
    name=$3
    case "$format" in
      *Pid*) cat "$state/${name#c0ffee}.pid" ;;
      *) cat "$state/$name.exit" 2>/dev/null || echo 137 ;;
    esac
    ;;
  stop)
    name=$3
    pid=$(cat "$state/$name.pid")
    kill -TERM "$pid" 2>/dev/null || true
    while kill -0 "$pid" 2>/dev/null; do sleep 0.02; done
    ;;
  rm)
    for name in "$@"; do
      [ "$name" = "--force" ] && continue
      [ -f "$state/$name.pid" ] && kill -KILL "$(cat "$state/$name.pid")" 2>/dev/null || true
      touch "$state/$name.removed"
    done
    ;;
  *) echo "fake docker: unknown command $cmd" >&2; exit 1 ;;
esac
