// The job service's start-up and memory, as `dispatch serve` runs: the time from launching the process to its URL
// on stdout (it listens: /healthz answers), to its ready line on stderr (its database is open and migrated: the API
// serves) and to the first /readyz answered 200 (asked every 10 ms from the URL on), on a new and on an existing
// PGlite data directory, and the process's idle RSS with PGlite and with PostgreSQL (DATABASE_URL's server, else one
// started with test/postgres/start.sh). Printed against their targets (ready within 5 s new / 1.5 s existing; RSS
// <= 250 MB with PGlite); measured, not asserted. With DISPATCH_BENCH_FRESH_CLONE=1 it also times the README's first
// command on a fresh clone of this checkout's commit (a clone, pnpm install from the machine's pnpm store, the build
// and the demo: minutes of both cores, so not by default).
// `node bench/startup.mjs --baseline DIR` also measures the checkout at DIR (its packages built, e.g. a copy of an
// older commit's packages/ beside a node_modules link) in the same run, each measurement alternating old and new.
import { execFileSync, spawn } from "node:child_process"
import { get } from "node:http"
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import { profileSummary, summaryLines } from "./lib/cpu-profile.mjs"
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
// DISPATCH_BENCH_PROFILE=DIR runs the start on an existing data dir under `node --cpu-prof` and prints where its CPU went.
const profileDir = process.env.DISPATCH_BENCH_PROFILE
const readyTargets = { fresh: 5000, existing: 1500 }

// Answers once GET <origin>/readyz answers 200, asking every 10 ms.
const readyz = (origin) =>
  new Promise((resolve) => {
    const ask = () =>
      get(`${origin}/readyz`, (response) => {
        response.resume()
        if (response.statusCode === 200) resolve()
        else setTimeout(ask, 10)
      }).on("error", () => setTimeout(ask, 10))
    ask()
  })
const readyLine = /^dispatch serve: ready/m

const rssMb = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) / 1024
const cpuMs = (pid) => {
  // utime and stime, in clock ticks (100 per second on Linux), after the command name's closing parenthesis.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")
  return (Number(fields[11]) + Number(fields[12])) * 10
}

// Starts `dispatch serve`, waits for its URL and until it serves, lets it idle, and stops it; returns what was measured.
const serveOnce = ({ cli, printsReadyLine }, args, env, profiling = []) =>
  new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...profiling, cli, "serve", "--port", "0", ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let firstStderrMs
    let urlMs
    let cpuAtUrlMs
    let readyMs
    let readyzMs
    // Once it serves (its ready line, or its URL for a build without one, and /readyz 200) it idles, then is measured
    // and stopped.
    const settle = () => {
      if (urlMs === undefined || readyzMs === undefined || readyMs !== undefined || (printsReadyLine && !readyLine.test(stderr))) return
      readyMs = performance.now() - started
      const cpuAtReadyMs = cpuMs(child.pid)
      setTimeout(() => {
        const measured = { urlMs, cpuAtUrlMs, readyMs, readyzMs, cpuAtReadyMs, rssMb: rssMb(child.pid), firstStderrMs, stderr }
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
      const origin = /^(http:\/\/[^/\s]+)/.exec(stdout)?.[1]
      void readyz(origin).then(() => {
        readyzMs = performance.now() - started
        settle()
      })
      settle()
    })
    child.once("exit", (code) => {
      if (readyMs === undefined) reject(new Error(`dispatch serve exited with ${code} before printing its URL:\n${stderr}`))
    })
  })

const verdict = (value, target) => (value <= target ? "met" : "NOT met")

const line = (label, m, targetMs) =>
  console.log(
    `${label}: ready (/readyz 200) after ${m.readyzMs.toFixed(0)} ms (target <= ${targetMs} ms: ${verdict(m.readyzMs, targetMs)}); ` +
      `URL after ${m.urlMs.toFixed(0)} ms (process CPU ${m.cpuAtUrlMs} ms), ready line after ${m.readyMs.toFixed(0)} ms (process CPU ${m.cpuAtReadyMs} ms), ` +
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
  for (const m of measured) {
    const profileName = `startup-${m.build.label.replace(/\W/g, "") || "serve"}-${Date.now()}.cpuprofile`
    const profiling = profileDir === undefined || profileDir === "" ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`, `--cpu-prof-name=${profileName}`]
    m.again = await serveOnce(m.build, ["--data-dir", join(dir, `data-${m.build.label.replace(/\W/g, "")}`)], { DATABASE_URL: "" }, profiling)
    if (profiling.length > 0) {
      console.log(`${named(m.build, "where the CPU of a start on an existing data dir went")} (start, ${idleMs / 1000} s idle, stop):`)
      for (const text of summaryLines(profileSummary(JSON.parse(readFileSync(join(profileDir, profileName), "utf8"))), 20)) console.log(`  ${text}`)
    }
  }
  for (const { build, fresh } of measured) line(named(build, "PGlite, new data dir"), fresh, readyTargets.fresh)
  for (const { build, again } of measured) line(named(build, "PGlite, existing data dir"), again, readyTargets.existing)
  for (const { build, again } of measured) console.log(`${named(build, "PGlite")}: idle RSS ${again.rssMb.toFixed(0)} MB ${idleMs / 1000} s after serving (target <= 250 MB: ${verdict(again.rssMb, 250)})`)
  const { build, fresh } = measured.at(-1)
  console.log(`${named(build, "dispatch serve's stderr on a new data dir")} (its access-log lines of the bench's /readyz polls left out):\n  ${fresh.stderr.trim().split("\n").filter((l) => !l.includes(" GET /readyz ")).join("\n  ")}`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

await withPostgres(async (databaseUrl) => {
  for (const build of builds) {
    const m = await serveOnce(build, [], { DATABASE_URL: databaseUrl })
    console.log(
      `${named(build, "PostgreSQL 15")}: URL after ${m.urlMs.toFixed(0)} ms (process CPU ${m.cpuAtUrlMs} ms), ready (/readyz 200) after ${m.readyzMs.toFixed(0)} ms, ` +
        `idle RSS of the service process ${m.rssMb.toFixed(0)} MB (PostgreSQL's own processes not counted)`
    )
  }
})

// The README's first command on a fresh clone: its time, from the clone's first file to the demo's end.
if (process.env.DISPATCH_BENCH_FRESH_CLONE === "1") {
  const clone = mkdtempSync(join(tmpdir(), "dispatch-clone-"))
  try {
    const commit = execFileSync("git", ["-C", repo, "rev-parse", "HEAD"], { encoding: "utf8" }).trim()
    const readme = readFileSync(join(repo, "README.md"), "utf8")
    const command = /```sh\n([^\n]+)\n```/.exec(readme)?.[1]
    const t0 = performance.now()
    execFileSync("git", ["clone", "-q", repo, clone], { stdio: "inherit" })
    execFileSync("git", ["-C", clone, "checkout", "-q", commit], { stdio: "inherit" })
    const cloned = performance.now()
    execFileSync("sh", ["-c", command], { cwd: clone, stdio: ["ignore", "ignore", "inherit"], timeout: 900_000 })
    console.log(`the README's first command on a fresh clone (${command}): ${((performance.now() - cloned) / 1000).toFixed(1)} s (the clone itself ${((cloned - t0) / 1000).toFixed(1)} s; pnpm's store on this machine already holds the packages)`)
  } finally {
    rmSync(clone, { recursive: true, force: true })
  }
} else console.log("the README's first command on a fresh clone: not measured (DISPATCH_BENCH_FRESH_CLONE=1 measures it: minutes of both cores)")
