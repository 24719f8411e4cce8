#!/usr/bin/env bash
# Starts a throwaway PostgreSQL 15 on loopback for the job service's tests and benchmark.
# Prints `DATABASE_URL=...` and `PGDIR=...` on stdout (pass PGDIR to stop.sh). Exits 3 with a note on
# stderr when the postgres binaries are absent, so callers can tell "not installed" from "failed".
set -euo pipefail
bin="${PG_BIN:-/usr/lib/postgresql/15/bin}"
if [ ! -x "$bin/initdb" ] || [ ! -x "$bin/pg_ctl" ]; then
  echo "postgres binaries not found in $bin" >&2
  exit 3
fi
dir="$(mktemp -d /tmp/dispatch-pg.XXXXXX)"
chmod 755 "$dir"
# initdb refuses to run as root, so the cluster belongs to the postgres user when we are root.
as_owner=()
if [ "$(id -u)" = "0" ]; then
  chown postgres:postgres "$dir"
  as_owner=(runuser -u postgres --)
fi
port="$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
"${as_owner[@]}" "$bin/initdb" -D "$dir/data" -U dispatch --auth=trust -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
  || { cat "$dir/initdb.log" >&2; rm -rf "$dir"; exit 1; }
"${as_owner[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
  -o "-c listen_addresses=127.0.0.1 -c port=$port -k $dir -c fsync=off -c max_connections=100" start >/dev/null \
  || { cat "$dir/server.log" >&2; rm -rf "$dir"; exit 1; }
echo "DATABASE_URL=postgres://dispatch@127.0.0.1:$port/postgres"
echo "PGDIR=$dir"
