// The job service's start-up and memory, as `dispatch serve` runs: the time from launching the process to
// its URL on stdout on a new and on an existing PGlite data directory, and the process's idle RSS with PGlite
// and with PostgreSQL (DATABASE_URL's server, else one started with test/postgres/start.sh). Printed against
// their targets (URL within 5 s new / 2 s existing; RSS <= 250 MB with PGlite); measured, not asserted.
import { spawn } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { withPostgres } from "./lib/postgres.mjs"

const cli = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "cli", "bin", "dispatch.js")
const idleMs = 3000

const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024
const cpuMs = (pid) => {
  // utime and stime, in clock ticks (100 per second on Linux), after the command name's closing parenthesis.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// Starts `dispatch serve`, waits for its URL, lets it idle, and stops it; returns what was measured.
const serveOnce = (args, env) =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [cli, "serve", "--port", "0", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let firstStderrMs
    child.stderr.on("data", (chunk) => {
      firstStderrMs ??= performance.now() - started
      stderr += chunk
    })
    let stdout = ""
    child.stdout.on("data", (chunk) => {
      stdout += chunk
      if (!stdout.includes("\n") || child.urlAtMs !== undefined) return
      child.urlAtMs = performance.now() - started
      const cpuAtUrl = cpuMs(child.pid)
      setTimeout(() => {
        const measured = { urlMs: child.urlAtMs, cpuAtUrlMs: cpuAtUrl, rssMb: rssMb(child.pid), firstStderrMs, stderr }
        child.once("exit", () => resolve(measured))
        child.kill("SIGTERM")
      }, idleMs)
    })
    child.once("exit", (code) => {
      if (child.urlAtMs === undefined) reject(new Error(`dispatch serve exited with ${code} before printing its URL:\n${stderr}`))
    })
  })

const verdict = (value, target) => (value <= target ? "met" : "NOT met")

const dir = mkdtempSync(join(tmpdir(), "dispatch-startup-"))
try {
  const dataDir = join(dir, "data")
  const fresh = await serveOnce(["--data-dir", dataDir], { DATABASE_URL: "" })
  const again = await serveOnce(["--data-dir", dataDir], { DATABASE_URL: "" })
  const line = (label, m, targetMs) =>
    console.log(
      `${label}: URL after ${m.urlMs.toFixed(0)} ms (process CPU ${m.cpuAtUrlMs} ms; target <= ${targetMs} ms: ${verdict(m.urlMs, targetMs)}), ` +
        `first stderr line after ${m.firstStderrMs === undefined ? "none" : `${m.firstStderrMs.toFixed(0)} ms`}`
    )
  line("PGlite, new data dir", fresh, 5000)
  line("PGlite, existing data dir", again, 2000)
  console.log(`PGlite: idle RSS ${again.rssMb.toFixed(0)} MB ${idleMs / 1000} s after the URL (target <= 250 MB: ${verdict(again.rssMb, 250)})`)
  console.log(`dispatch serve's stderr on a new data dir:\n  ${fresh.stderr.trim().split("\n").join("\n  ")}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

await withPostgres(async (databaseUrl) => {
  const m = await serveOnce([], { DATABASE_URL: databaseUrl })
  console.log(`PostgreSQL 15: URL after ${m.urlMs.toFixed(0)} ms (process CPU ${m.cpuAtUrlMs} ms), idle RSS of the service process ${m.rssMb.toFixed(0)} MB (PostgreSQL's own processes not counted)`)
})
