import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import pg from "pg"

const scripts = fileURLToPath(new URL("../../../test/postgres/", import.meta.url))

const run = (script: string, args: ReadonlyArray<string>) =>
  new Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }>((resolve) => {
    execFile(`${scripts}${script}`, [...args], { timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr })
    )
  })

/** A fresh, empty PostgreSQL database for one test file, and how to drop it (and the cluster, if this file started one). */
export interface TestPostgres {
  readonly url: string
  readonly release: () => Promise<void>
}

let counter = 0

const freshDatabase = async (adminUrl: string, stop: () => Promise<void>): Promise<TestPostgres> => {
  const name = `dispatch_test_${process.pid}_${++counter}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    release: async () => {
      const cleanup = new pg.Client({ connectionString: adminUrl })
      await cleanup.connect()
      await cleanup.query(`drop database if exists ${name} with (force)`)
      await cleanup.end()
      await stop()
    }
  }
}

// CI sets DISPATCH_REQUIRE_POSTGRES=1 with a DATABASE_URL from test/postgres/start.sh; locally the cluster is
// started here. Either way, no PostgreSQL means a failed run, never a skipped one.
/** Gets a PostgreSQL database for tests: a fresh one on DATABASE_URL's server, or on a cluster started for the file. */
export const testPostgres = async (): Promise<TestPostgres> => {
  const given = process.env["DATABASE_URL"]
  if (given !== undefined && given !== "") return freshDatabase(given, async () => undefined)
  if (process.env["DISPATCH_REQUIRE_POSTGRES"] === "1") {
    throw new Error("DISPATCH_REQUIRE_POSTGRES=1 but DATABASE_URL is not set: start PostgreSQL with test/postgres/start.sh")
  }
  const started = await run("start.sh", [])
  if (started.code !== 0) {
    throw new Error(`cannot start PostgreSQL for the tests (exit ${started.code}): ${started.stderr.trim()}; install postgresql-15 or set DATABASE_URL`)
  }
  const value = (key: string) => started.stdout.split("\n").find((line) => line.startsWith(`${key}=`))?.slice(key.length + 1) ?? ""
  const dir = value("PGDIR")
  return freshDatabase(value("DATABASE_URL"), async () => {
    await run("stop.sh", [dir])
  })
}
