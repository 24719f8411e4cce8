// `pnpm test:stress`: the README's test command (`node scripts/test.mjs`, what `pnpm test` runs) while
// two busy-loop processes keep both cores of a small machine saturated, so that a test depending on the
// machine's speed fails here rather than on a busy CI runner. Exits with the suite's status. Arguments
// are passed on to vitest.
import { spawn } from "node:child_process"
import { constants } from "node:os"
import { fileURLToPath } from "node:url"

const BUSY_LOOPS = 2
/** Schedules of the fault campaign in a stress run (CI runs 500): about ten minutes of one test worker on two
 * busy cores (docs/testing.md has the measured cost, and how to run 5,000). */
const CAMPAIGN_RUNS = 1000

// Each loop checks its parent about once a second and ends when the parent is gone, so that not even a
// SIGKILL of this script leaves a core spinning; otherwise it never yields. The parent's pid is passed
// in, not read at start: a loop that starts after its parent died would read the reaper's pid.
const busyLoop = `
const parent = Number(process.argv[1])
for (let next = Date.now() + 1000; ; ) {
  if (Date.now() >= next) {
    if (process.ppid !== parent) process.exit(0)
    next = Date.now() + 1000
  }
}`

/** @type {Array<import("node:child_process").ChildProcess>} */
const loops = []
/** @type {import("node:child_process").ChildProcess | undefined} */
let suite
const stopLoops = () => {
  for (const loop of loops) if (loop.exitCode === null && loop.signalCode === null) loop.kill("SIGKILL")
}
// Whatever ends this script (the suite's end, an error, Ctrl-C, a SIGTERM from CI), the loops end with
// it, and so does the suite: it runs in its own process group, so that stopping this script stops
// vitest and its workers too, not only the wrapper that waits for them.
process.on("exit", stopLoops)
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    stopLoops()
    if (suite?.pid === undefined) process.exit(128 + constants.signals[signal])
    try {
      process.kill(-suite.pid, signal)
    } catch {
      // The suite has already ended; its exit handler ends this script.
    }
  })
}

for (let i = 0; i < BUSY_LOOPS; i++) loops.push(spawn(process.execPath, ["-e", busyLoop, String(process.pid)], { stdio: "ignore" }))
// The fault campaign (packages/server/test/campaign) runs twice its CI size here, on PostgreSQL, unless told otherwise.
const env = { ...process.env, CAMPAIGN_RUNS: process.env.CAMPAIGN_RUNS ?? String(CAMPAIGN_RUNS), CAMPAIGN_DATABASE: process.env.CAMPAIGN_DATABASE ?? "postgres" }
suite = spawn(process.execPath, [fileURLToPath(new URL("test.mjs", import.meta.url)), ...process.argv.slice(2)], { stdio: "inherit", detached: true, env })
console.log(`test:stress: ${BUSY_LOOPS} busy-loop processes (pids ${loops.map((l) => l.pid).join(", ")}) keep the cores busy while the suite runs`)
suite.once("error", (error) => {
  console.error(`test:stress: could not run the suite: ${error.message}`)
  process.exit(1)
})
suite.once("exit", (code, signal) => {
  stopLoops()
  process.exit(code ?? 128 + (signal === null ? 0 : constants.signals[signal]))
})
