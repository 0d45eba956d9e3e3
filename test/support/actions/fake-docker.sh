#!/bin/sh
# A stand-in for the docker client and engine (this machine has no engine), just enough for
# DockerRuntime's lifecycle: run --detach starts a "container" (a shell process whose output goes
# to a file), logs --follow tails that file until the process ends, inspect reports its exit code,
# stop sends TERM, rm --force kills and forgets it; ps lists $FAKE_DOCKER_STATE/containers (name,
# then the run, owner and cpus labels, tab-separated), filtered by the run label. Every call is
# appended to $FAKE_DOCKER_STATE/calls. An image with a program in $FAKE_DOCKER_IMAGES (named
# after the image, '/' and ':' as '_') runs that program with the container's args and --env, and
# $FAKE_DOCKER_CONTAINER set to its name (it may write its exit code to <state>/<name>.exit).
set -eu
state=${FAKE_DOCKER_STATE:?}
echo "$*" >>"$state/calls"
cmd=$1
shift
case "$cmd" in
  version) echo "28.2.2" ;;
  run)
    name=""
    labels=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --detach | --init) shift ;;
        --name) name=$2; shift 2 ;;
        --label) labels="$labels$2
"; shift 2 ;;
        --env) export "${2?}"; shift 2 ;;
        --*) shift 2 ;;
        *) break ;;
      esac
    done
    image=$1
    shift
    [ "$image" = "missing/image:local" ] && { echo "docker: Error response from daemon: No such image: $image" >&2; exit 125; }
    printf '%s\n' "$@" >"$state/$name.args"
    label() { printf '%s' "$labels" | sed -n "s/^org\.proxybench\.$1=//p"; }
    printf '%s\t%s\t%s\t%s\n' "$name" "$(label run)" "$(label owner)" "$(label cpus)" >>"$state/containers"
    # The container: prints its arguments, then serves until TERM (exit 0) or its own end.
    (
      trap 'echo "got TERM"; echo 0 >"$state/$name.exit"; exit 0' TERM
      echo "container $name started: $*"
      echo "on stderr" >&2
      program="${FAKE_DOCKER_IMAGES:-/nonexistent}/$(printf '%s' "$image" | tr '/:' '__')"
      [ -x "$program" ] && FAKE_DOCKER_CONTAINER=$name exec "$program" "$@"
      if [ "${1:-}" = "crash" ]; then echo 3 >"$state/$name.exit"; exit 3; fi
      while :; do sleep 0.05; done
    ) >"$state/$name.log" 2>&1 &
    echo $! >"$state/$name.pid"
    echo "c0ffee$name"
    ;;
  logs)
    # Until the "container" ends: gone, or a zombie (an orphan whose reaping may lag: real docker
    # sees the exit at once), then the last lines.
    name=$2
    pid=$(cat "$state/$name.pid")
    tail -s 0.05 -n +1 -f "$state/$name.log" &
    follower=$!
    while kill -0 "$pid" 2>/dev/null && [ "$(cut -d ' ' -f 3 "/proc/$pid/stat" 2>/dev/null)" != Z ]; do sleep 0.05; done
    sleep 0.2
    kill "$follower"
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
      [ -f "$state/containers" ] && awk -F '\t' -v n="$name" '$1 != n' "$state/containers" >"$state/containers.new" && mv "$state/containers.new" "$state/containers" || true
    done
    ;;
  ps)
    run=""
    while [ $# -gt 0 ]; do
      case "$1" in
        --filter) case "$2" in label=org.proxybench.run=*) run=${2#label=org.proxybench.run=} ;; esac; shift 2 ;;
        --format) shift 2 ;;
        *) shift ;;
      esac
    done
    [ -f "$state/containers" ] || exit 0
    awk -F '\t' -v r="$run" 'r == "" || $2 == r' "$state/containers"
    ;;
  *) echo "fake docker: unknown command $cmd" >&2; exit 1 ;;
esac
