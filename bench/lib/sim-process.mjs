// A simulator server in its own process, as a real API server would be: the bench's client side (Start,
// the Effect runtime, client-node) and the server do not share one JavaScript thread. The parent talks to
// it over the IPC channel: it sends the options, gets the URL back, and asks for the count of API calls
// served (every verb but watch), so "API calls per second" is what the server saw, not what we think
// we sent. "settle" runs the simulator's controllers at once, step after step, until a step writes
// nothing: the work a burst of calls left them is then done, not waiting for the next tick.
//
// SIM_CPU_PROF=<dir> writes a V8 CPU profile of this process, from the first message to "close", to
// <dir>/sim-<pid>.cpuprofile (open it in Chrome's DevTools, or sum self time per function from its nodes).
import { mkdirSync, writeFileSync } from "node:fs"
import { Session } from "node:inspector/promises"
import { join } from "node:path"
import { Simulator, startSimServer } from "../../packages/sim/dist/index.js"

const profileDir = process.env.SIM_CPU_PROF
const profiler = profileDir === undefined || profileDir === "" ? undefined : new Session()
if (profiler !== undefined) {
  profiler.connect()
  await profiler.post("Profiler.enable")
  await profiler.post("Profiler.start")
}
const writeProfile = async () => {
  if (profiler === undefined) return
  const { profile } = await profiler.post("Profiler.stop")
  mkdirSync(profileDir, { recursive: true })
  writeFileSync(join(profileDir, `sim-${process.pid}.cpuprofile`), JSON.stringify(profile))
  profiler.disconnect()
}

process.once("message", async ({ simulatorOptions, tickMs }) => {
  const simulator = new Simulator(simulatorOptions)
  let calls = 0
  const counted = {
    handle: (request) => {
      calls++
      return simulator.handle(request)
    },
    serve: (request) => {
      calls++
      return simulator.serve(request)
    },
    watch: (request, onEvent) => simulator.watch(request, onEvent),
    now: () => simulator.now(),
    advanceTo: (ms) => simulator.advanceTo(ms)
  }
  const server = await startSimServer({ simulator: counted, tickMs })
  let writes = 0
  simulator.onChange(() => writes++)
  const settle = () => {
    for (let step = 0; step < 10; step++) {
      const before = writes
      simulator.advance(1)
      if (writes === before) return
    }
  }
  process.on("message", async (message) => {
    if (message === "calls") process.send({ calls, cpu: process.cpuUsage() })
    if (message === "settle") {
      settle()
      process.send({ settled: true })
    }
    if (message === "close") {
      await server.close()
      await writeProfile()
      process.disconnect()
    }
  })
  process.send({ url: server.url })
})
