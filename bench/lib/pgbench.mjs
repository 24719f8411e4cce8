// The raw INSERT rate of PostgreSQL itself, measured with pgbench: the ceiling the job service's creation rate
// is compared with. The row has a job row's shape and size (the columns of `jobs`, a snapshot of the values a
// bench job stores), in a table of its own so the service's tables are not touched.
import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

const bin = process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin"

const table = `create table if not exists bench_job_rows (
  id integer generated always as identity primary key, grp text not null, username text not null, experiment integer not null,
  entrypoint integer not null, entrypoint_snapshot integer not null, queue integer not null, parameter_values jsonb not null,
  artifact_values jsonb not null, swaps jsonb not null, timeout_seconds float8 not null, description text not null,
  status text not null, created_on text not null, last_modified_on text not null, mlflow_run_id text unique,
  deleted boolean not null default false)`

const insert = `insert into bench_job_rows (grp, username, experiment, entrypoint, entrypoint_snapshot, queue, parameter_values,
  artifact_values, swaps, timeout_seconds, description, status, created_on, last_modified_on)
  values ('bench', 'bench', 1, 1, 1, 1, '{"epochs": "7", "lr": "0.01"}'::jsonb, '{}'::jsonb, '{"method": "a"}'::jsonb, 7200,
  'bench 7', 'queued', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z');`

/** INSERTs of a job-sized row per second into `databaseUrl` from `clients` pgbench clients over `seconds`; undefined without pgbench. */
export const rawInsertRate = (databaseUrl, clients, seconds) => {
  const pgbench = join(bin, "pgbench")
  const psql = join(bin, "psql")
  const dir = mkdtempSync(join(tmpdir(), "dispatch-pgbench-"))
  try {
    execFileSync(psql, ["-q", "-v", "ON_ERROR_STOP=1", "-c", table, databaseUrl], { stdio: ["ignore", "ignore", "inherit"] })
    const script = join(dir, "insert-job-row.sql")
    writeFileSync(script, `${insert.replace(/\s*\n\s*/g, " ")}\n`)
    const out = execFileSync(pgbench, ["-n", "-f", script, "-c", String(clients), "-j", "2", "-T", String(seconds), databaseUrl], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    const tps = /tps = ([0-9.]+) \(without initial connection time\)/.exec(out)
    if (tps === null) throw new Error(`pgbench printed no rate:\n${out}`)
    return Number(tps[1])
  } finally {
    rmSync(dir, { recursive: true, force: true })
    execFileSync(psql, ["-q", "-c", "drop table if exists bench_job_rows", databaseUrl], { stdio: ["ignore", "ignore", "inherit"] })
  }
}
