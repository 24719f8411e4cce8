// PostgreSQL's own rates, measured with pgbench: the ceilings the job service's creation rate is compared with.
// The raw INSERT is of a row with a job row's shape and size (the columns of `jobs`, a snapshot of the values a
// bench job stores), in a table of its own so the service's tables are not touched; a replay script sends exactly
// the statements the service sent for one creation.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
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

/** Transactions per second of pgbench running `script` (a custom script's text) from `clients` clients over
 * `seconds` against `databaseUrl`, with `protocol` (pgbench's -M: simple, extended or prepared). */
export const scriptRate = (databaseUrl, script, clients, seconds, protocol = "simple") => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-pgbench-"))
  try {
    const file = join(dir, "script.sql")
    writeFileSync(file, script)
    const out = execFileSync(join(bin, "pgbench"), ["-n", "-M", protocol, "-f", file, "-c", String(clients), "-j", "2", "-T", String(seconds), databaseUrl], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"]
    })
    const tps = /tps = ([0-9.]+) \(without initial connection time\)/.exec(out)
    if (tps === null) throw new Error(`pgbench printed no rate:\n${out}`)
    return Number(tps[1])
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** INSERTs of a job-sized row per second into `databaseUrl` from `clients` pgbench clients over `seconds`. */
export const rawInsertRate = (databaseUrl, clients, seconds) => {
  const psql = join(bin, "psql")
  execFileSync(psql, ["-q", "-v", "ON_ERROR_STOP=1", "-c", table, databaseUrl], { stdio: ["ignore", "ignore", "inherit"] })
  try {
    return scriptRate(databaseUrl, `${insert.replace(/\s*\n\s*/g, " ")}\n`, clients, seconds)
  } finally {
    execFileSync(psql, ["-q", "-c", "drop table if exists bench_job_rows", databaseUrl], { stdio: ["ignore", "ignore", "inherit"] })
  }
}

// Each placeholder becomes a literal of the text the driver sent, untyped as the driver's parameters are, so the
// server infers the same types; a literal holding `:` is safe in pgbench's simple protocol, which substitutes
// only variables it knows.
const quoted = (value) => (value === null || value === undefined ? "NULL" : `'${String(value).replaceAll("'", "''")}'`)

/** A pgbench script sending `statements` in order, one a line: each `{text, params}`, its `$n` placeholders and the
 * text of its parameters as the driver sent them (node-postgres's `prepareValue`). */
export const replayScript = (statements) =>
  statements.map(({ text, params }) => `${text.replace(/\s+/g, " ").trim().replace(/\$(\d+)/g, (_, n) => quoted(params[Number(n) - 1]))};\n`).join("")

/** The latency in milliseconds of each of `transactions` runs of `script` by one pgbench client against
 * `databaseUrl` with `protocol` (from pgbench's per-transaction log). */
export const scriptLatencies = (databaseUrl, script, transactions, protocol = "prepared") => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-pgbench-"))
  try {
    const file = join(dir, "script.sql")
    writeFileSync(file, script)
    execFileSync(join(bin, "pgbench"), ["-n", "-M", protocol, "-f", file, "-c", "1", "-t", String(transactions), "-l", "--log-prefix", join(dir, "log"), databaseUrl], {
      stdio: ["ignore", "pipe", "pipe"]
    })
    const log = readdirSync(dir).find((name) => name.startsWith("log"))
    // Each line: client, transaction, latency in microseconds, script, epoch seconds, microseconds.
    return readFileSync(join(dir, log), "utf8").trim().split("\n").map((line) => Number(line.split(" ")[2]) / 1000)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}
