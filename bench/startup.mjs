// The job service's start-up and memory, as `dispatch serve` runs: the time from launching the process to its URL
// on stdout (it listens: /healthz answers) and to its ready line on stderr (its database is open and migrated: the API
// serves), on a new and on an existing PGlite data directory, and the process's idle RSS with PGlite and with
// PostgreSQL (DATABASE_URL's server, else one started with test/postgres/start.sh). Printed against their targets
// (URL within 5 s new / 2 s existing; RSS <= 250 MB with PGlite); measured, not asserted.
// `node bench/startup.mjs --baseline DIR` also measures the checkout at DIR (its packages built, e.g. a copy of an
// older commit's packages/ beside a node_modules link) in the same run, each measurement alternating old and new.
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { withPostgres } from "./lib/postgres.mjs"

// A build from before the URL came first prints no ready line: it serves once it prints its URL.
const buildAt = (label, root) => ({ label, cli: join(root, "packages", "cli", "bin", "dispatch.js"), printsReadyLine: existsSync(join(root, "packages", "cli", "dist", "commands", "ServeReady.js")) })
const repo = join(dirname(fileURLToPath(import.meta.url)), "..")
const baselineAt = process.argv.indexOf("--baseline")
const builds = [
  ...(baselineAt === -1 ? [] : [buildAt("baseline", process.argv[baselineAt + 1])]),
  buildAt(baselineAt === -1 ? "" : "this tree", repo)
]
const idleMs = 3000
const readyLine = /^dispatch serve: ready/m

const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024
const cpuMs = (pid) => {
  // utime and stime, in clock ticks (100 per second on Linux), after the command name's closing parenthesis.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// Starts `dispatch serve`, waits for its URL and until it serves, lets it idle, and stops it; returns what was measured.
const serveOnce = ({ cli, printsReadyLine }, args, env) =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [cli, "serve", "--port", "0", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let firstStderrMs
    let urlMs
    let cpuAtUrlMs
    let readyMs
    // Once it serves (its ready line, or its URL for a build without one) it idles, then is measured and stopped.
    const settle = () => {
      if (urlMs === undefined || readyMs !== undefined || (printsReadyLine && !readyLine.test(stderr))) return
      readyMs = performance.now() - started
      const cpuAtReadyMs = cpuMs(child.pid)
      setTimeout(() => {
        const measured = { urlMs, cpuAtUrlMs, readyMs, cpuAtReadyMs, rssMb: rssMb(child.pid), firstStderrMs, stderr }
        child.once("exit", () => resolve(measured))
        child.kill("SIGTERM")
      }, idleMs)
    }
    child.stderr.on("data", (chunk) => {
      firstStderrMs ??= performance.now() - started
      stderr += chunk
      settle()
    })
    let stdout = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      if (!stdout.includes("\n") || urlMs !== undefined) return
      urlMs = performance.now() - started
      cpuAtUrlMs = cpuMs(child.pid)
      settle()
    })
    child.once("exit", (code) => {
      if (readyMs === undefined) reject(new Error(`dispatch serve exited with ${code} before printing its URL:\n${stderr}`))
    })
  })

const verdict = (value, target) => (value <= target ? "met" : "NOT met")

const line = (label, m, targetMs) =>
  console.log(
    `${label}: URL after ${m.urlMs.toFixed(0)} ms (process CPU ${m.cpuAtUrlMs} ms; target <= ${targetMs} ms: ${verdict(m.urlMs, targetMs)}), ` +
      `serving after ${m.readyMs.toFixed(0)} ms (process CPU ${m.cpuAtReadyMs} ms), ` +
      `first stderr line after ${m.firstStderrMs === undefined ? "none" : `${m.firstStderrMs.toFixed(0)} ms`}`
  )
const named = (build, what) => (build.label === "" ? what : `${build.label}: ${what}`)

const dir = mkdtempSync(join(tmpdir(), "dispatch-startup-"))
try {
  const measured = []
  for (const build of builds) {
    const dataDir = join(dir, `data-${build.label.replace(/\W/g, "")}`)
    measured.push({ build, fresh: await serveOnce(build, ["--data-dir", dataDir], { DATABASE_URL: "" }) })
  }
  for (const m of measured) m.again = await serveOnce(m.build, ["--data-dir", join(dir, `data-${m.build.label.replace(/\W/g, "")}`)], { DATABASE_URL: "" })
  for (const { build, fresh } of measured) line(named(build, "PGlite, new data dir"), fresh, 5000)
  for (const { build, again } of measured) line(named(build, "PGlite, existing data dir"), again, 2000)
  for (const { build, again } of measured) console.log(`${named(build, "PGlite")}: idle RSS ${again.rssMb.toFixed(0)} MB ${idleMs / 1000} s after serving (target <= 250 MB: ${verdict(again.rssMb, 250)})`)
  const { build, fresh } = measured.at(-1)
  console.log(`${named(build, "dispatch serve's stderr on a new data dir")}:\n  ${fresh.stderr.trim().split("\n").join("\n  ")}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

await withPostgres(async (databaseUrl) => {
  for (const build of builds) {
    const m = await serveOnce(build, [], { DATABASE_URL: databaseUrl })
    console.log(
      `${named(build, "PostgreSQL 15")}: URL after ${m.urlMs.toFixed(0)} ms (process CPU ${m.cpuAtUrlMs} ms), serving after ${m.readyMs.toFixed(0)} ms, ` +
        `idle RSS of the service process ${m.rssMb.toFixed(0)} MB (PostgreSQL's own processes not counted)`
    )
  }
})
