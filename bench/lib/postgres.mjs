// A throwaway PostgreSQL 15 database for a bench: a new database on the server DATABASE_URL names when it is
// set, else a server of its own (test/postgres/start.sh), or a printed note when the binaries are absent. Lives in bench/lib so that bench/run.mjs does not run it as a bench of its own.
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const scripts = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "postgres")

const psql = join(process.env.PG_BIN ?? "/usr/lib/postgresql/15/bin", "psql")

/** Runs one SQL statement with psql against `url` (a bench's own database). */
export const psqlRun = (url, statement) => execFileSync(psql, ["-q", "-v", "ON_ERROR_STOP=1", "-c", statement, url], { stdio: ["ignore", "ignore", "inherit"] })

// A database of its own on a shared server, dropped afterwards, so a bench's rows never meet a test's.
const withDatabaseOn = async (serverUrl, use) => {
  const name = `dispatch_bench_${randomBytes(6).toString("hex")}`
  psqlRun(serverUrl, `create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  try {
    await use(url.toString())
  } finally {
    psqlRun(serverUrl, `drop database ${name} with (force)`)
  }
}

/** Runs `use(databaseUrl)` against a fresh PostgreSQL database (on DATABASE_URL's server when set, else on a server
 * started for it and stopped afterwards); skips with a note when there is none. */
export const withPostgres = async (use) => {
  if (process.env.DATABASE_URL !== undefined && process.env.DATABASE_URL !== "") return withDatabaseOn(process.env.DATABASE_URL, use)
  let started
  try {
    started = execFileSync(join(scripts, "start.sh"), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 60_000 })
  } catch (error) {
    if (error.status === 3) return console.log(`PostgreSQL: skipped, ${String(error.stderr).trim()}`)
    throw error
  }
  const value = (key) => started.split("\n").find((l) => l.startsWith(`${key}=`))?.slice(key.length + 1)
  try {
    await use(value("DATABASE_URL"))
  } finally {
    execFileSync(join(scripts, "stop.sh"), [value("PGDIR")], { stdio: "inherit" })
  }
}
