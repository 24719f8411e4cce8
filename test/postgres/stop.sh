#!/usr/bin/env bash
# Stops a PostgreSQL started by start.sh and removes its directory: stop.sh PGDIR.
set -euo pipefail
dir="${1:?usage: stop.sh PGDIR}"
bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
case "$dir" in /tmp/dispatch-pg.*) ;; *) echo "refusing to remove $dir: not made by start.sh" >&2; exit 2 ;; esac
as_owner=()
[ "$(id -u)" = "0" ] && as_owner=(runuser -u postgres --)
if [ -d "$dir/data" ]; then "${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null || true; fi
rm -rf "$dir"
