// A throwaway PostgreSQL 15 for a bench (test/postgres/start.sh), or a printed note when the binaries
// are absent. Lives in bench/lib so that bench/run.mjs does not run it as a bench of its own.
import { execFileSync } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const scripts = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "test", "postgres")

/** Runs `use(databaseUrl)` against a fresh PostgreSQL and stops it afterwards; skips with a note without one. */
export const withPostgres = async (use) => {
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
