#!/bin/sh
# Installs dispatch's production root into DIR: the `dispatch` command (bin/, dist/) and the production
# dependencies only, workspace packages copied in (pnpm deploy --prod), so DIR runs with nothing else but
# Node: `node DIR/bin/dispatch.js serve`. The Containerfile runs it in its build stage and copies DIR into the
# final image; test/deploy/ContainerRoot.test.ts runs it too, so what the image holds is what the test starts.
#
#   deploy/container/build-root.sh DIR [pnpm deploy flags, e.g. --offline]
#
# Run from a built tree (pnpm install --frozen-lockfile, then pnpm run build): it packs what is built.
set -eu

if [ $# -lt 1 ]; then
  echo "usage: deploy/container/build-root.sh DIR [pnpm deploy flags]" >&2
  exit 2
fi
out=$1
shift
repo=$(cd -P "$(dirname "$0")/../.." && pwd -P)
cd "$repo"

# What the command and the service load at run time: the built packages and the web page's bundle.
for built in packages/cli/dist/main.js packages/server/dist/index.js packages/web/dist/app/index.html; do
  if [ ! -f "$built" ]; then
    echo "build-root.sh: $built is missing: run pnpm run build first" >&2
    exit 1
  fi
done
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "build-root.sh: $out is not empty" >&2
  exit 1
fi

npx -y pnpm@12.4.2 --filter @dispatch/cli deploy --prod --frozen-lockfile "$@" "$out"
# The deploy's own lockfile and workspace file are of no use at run time.
rm -f "$out/pnpm-lock.yaml" "$out/pnpm-workspace.yaml"
