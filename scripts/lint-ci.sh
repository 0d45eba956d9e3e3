#!/usr/bin/env bash
# Lints what TypeScript tools do not: workflows and actions (actionlint, zizmor) and the
# Dockerfiles of the proxies, the upstream and the coprocessors (hadolint). Tools come from
# scripts/setup.sh --for-tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bin="$root/.tools/bin"
venv="$root/.tools/venv/bin"

workflows=$(find .github/workflows workflows -name '*.yml' 2>/dev/null | sort || true)
if [ -n "$workflows" ]; then
  # shellcheck disable=SC2086
  "$bin/actionlint" $workflows
fi

actions=$(find . -path ./node_modules -prune -o -name action.yml -print 2>/dev/null | sort)
if [ -n "$workflows$actions" ]; then
  # shellcheck disable=SC2086
  "$venv/zizmor" --offline --persona auditor $workflows $actions
fi

dockerfiles=$(find proxies upstream coprocessors action -name Dockerfile -o -name "*.Dockerfile" 2>/dev/null | sort || true)
if [ -n "$dockerfiles" ]; then
  # shellcheck disable=SC2086
  "$venv/hadolint" $dockerfiles
fi
echo "lint-ci: workflows, actions and Dockerfiles clean"
