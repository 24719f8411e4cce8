// `dispatch serve` as an Effect program (what NodeRuntime.runMain runs in the executable): its interruption is the
// stop the service waits for, and it ends with the command's own code. The executable's SIGTERM and SIGINT are
// covered end to end by Serve.test.ts.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Cause, Effect, Exit, Fiber } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CliIo } from "../src/CliIo.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { processIo } from "../src/ProcessIo.ts"
import { servesUntilStopped, stoppableCommand } from "../src/ServeMain.ts"
import { serveReadyLine } from "../src/commands/ServeReady.ts"
import { recordingIo } from "./CommandLine.ts"
import { processBoundMs } from "./DispatchBinary.ts"

let dir: string
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "dispatch-serve-main-"))))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A recording CliIo on real files, whose stop is the one the program gives it. */
const io = () => {
  const recorded = recordingIo()
  const real = processIo(new Promise<void>(() => {}))
  const made: Array<Promise<void>> = []
  const ioWith = (stopRequested: Promise<void>): CliIo => {
    made.push(stopRequested)
    return { ...recorded.io, readFile: real.readFile, writeFile: real.writeFile, cwd: process.cwd(), stopRequested }
  }
  return { ...recorded, ioWith, made }
}

/** Waits (bounded far beyond a slow machine's start) until `check` holds. */
const until = async (check: () => boolean): Promise<boolean> => {
  for (const end = Date.now() + processBoundMs; Date.now() < end && !check(); ) await new Promise((r) => setTimeout(r, 25))
  return check()
}

describe("dispatch serve under runMain", { timeout: processBoundMs }, () => {
  it("is what `dispatch serve` runs, however its line is spelt, and nothing else", () => {
    expect(servesUntilStopped(["serve"])).toBe(true)
    expect(servesUntilStopped(["serve", "--sim", "--port", "0"])).toBe(true)
    expect(servesUntilStopped(["-o", "json", "serve"])).toBe(true)
    expect(servesUntilStopped(["serve", "hash-token", "--name", "a", "--group", "g"])).toBe(false)
    expect(servesUntilStopped(["sim", "serve"])).toBe(false)
    expect(servesUntilStopped(["version"])).toBe(false)
    expect(servesUntilStopped([])).toBe(false)
  })

  it("a command that ends by itself ends the program with its code, unasked to stop", async () => {
    const t = io()
    const ended: Array<number> = []
    const code = await Effect.runPromise(stoppableCommand(["serve", "--port", "x"], t.ioWith, (c) => void ended.push(c)))
    expect(code).toBe(ExitCode.usage)
    expect(ended).toEqual([ExitCode.usage])
    expect(t.err.join("\n")).toContain('--port "x" is not a port number (0-65535)')
  })

  it("interrupted, asks the service to stop and ends only once the command has ended, with its code", async () => {
    const t = io()
    const ended: Array<number> = []
    const fiber = Effect.runFork(stoppableCommand(["serve", "--port", "0", "--data-dir", join(dir, "data")], t.ioWith, (c) => void ended.push(c)))
    expect(await until(() => t.err.some((line) => line.startsWith(serveReadyLine)))).toBe(true)
    let stopAsked = false
    void t.made[0]?.then(() => (stopAsked = true))
    expect(ended).toEqual([])
    await Effect.runPromise(Fiber.interrupt(fiber))
    const exit = await Effect.runPromise(Fiber.await(fiber))
    // Interrupted: the program's own end says nothing of the code; the command's end does, and came first.
    expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
    expect(stopAsked).toBe(true)
    expect(ended).toEqual([ExitCode.ok])
  })
})
