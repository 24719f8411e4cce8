// `dispatch serve` as an Effect program (what NodeRuntime.runMain runs in the executable): its interruption is the
// stop, which closes its scope (the service, then its cluster), and it ends with the command's own code. The executable's SIGTERM and SIGINT are
// covered end to end by Serve.test.ts.
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Cause, Effect, Exit, Fiber, Result } from "effect"
import { lockDataDir } from "@dispatch/server"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CliIo } from "../src/CliIo.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { processIo } from "../src/ProcessIo.ts"
import { mainProgram, servesUntilStopped } from "../src/ServeMain.ts"
import { serveExitCode } from "../src/commands/Serve.ts"
import { serveReadyLine } from "../src/commands/ServeReady.ts"
import { recordingIo } from "./CommandLine.ts"
import { processBoundMs } from "./DispatchBinary.ts"

let dir: string
beforeAll(() => void (dir = mkdtempSync(join(tmpdir(), "dispatch-serve-main-"))))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** A recording CliIo on real files, whose own stop never comes (the program's interruption is its stop). */
const io = () => {
  const recorded = recordingIo()
  const real = processIo(new Promise<void>(() => {}))
  return { ...recorded, io: { ...recorded.io, readFile: real.readFile, writeFile: real.writeFile, cwd: process.cwd(), stopRequested: new Promise<void>(() => {}) } satisfies CliIo }
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
    const exit = await Effect.runPromiseExit(mainProgram(["serve", "--port", "x"], t.io))
    expect(serveExitCode(exit)).toBe(ExitCode.usage)
    expect(t.err.join("\n")).toContain('--port "x" is not a port number (0-65535)')
  })

  it("a line that is not the serve command runs that command", async () => {
    const t = io()
    const exit = await Effect.runPromiseExit(mainProgram(["serve", "hash-token", "--name", "a", "--group", "g"], t.io))
    expect(serveExitCode(exit)).toBe(ExitCode.ok)
    expect(JSON.parse(t.out.join("\n"))).toMatchObject({ name: "a", group: "g", access: "write" })
  })

  it("help is the command line's, and ends with 0", async () => {
    const t = io()
    const exit = await Effect.runPromiseExit(mainProgram(["serve", "--help"], t.io))
    expect(serveExitCode(exit)).toBe(ExitCode.ok)
    expect(t.out.join("\n")).toContain("--data-dir")
  })

  it("a start that fails ends the program with the failure's code, its lock given back", async () => {
    const t = io()
    const dataDir = join(dir, "held")
    const held = await lockDataDir(dataDir)
    expect(Result.isSuccess(held)).toBe(true)
    const exit = await Effect.runPromiseExit(mainProgram(["serve", "--port", "0", "--data-dir", dataDir], t.io))
    expect(serveExitCode(exit)).toBe(ExitCode.failure)
    expect(t.err.join("\n")).toContain("(lock)")
    if (Result.isSuccess(held)) await held.success.release()
  })

  it("interrupted once it serves, closes the service and ends interrupted, which is exit code 0", async () => {
    const t = io()
    const dataDir = join(dir, "data")
    const fiber = Effect.runFork(mainProgram(["serve", "--port", "0", "--data-dir", dataDir], t.io))
    expect(await until(() => t.err.some((line) => line.startsWith(serveReadyLine)))).toBe(true)
    const url = t.err.join("\n").match(/OpenAPI at (http:\/\/[^/]+)\//)?.[1]
    expect((await fetch(`${url}/readyz`)).status).toBe(200)
    await Effect.runPromise(Fiber.interrupt(fiber))
    const exit = await Effect.runPromise(Fiber.await(fiber))
    expect(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)).toBe(true)
    expect(serveExitCode(exit)).toBe(ExitCode.ok)
    // Its scope closed before the interruption ended: the listener is gone and the data directory is free again.
    await expect(fetch(`${url}/healthz`)).rejects.toThrow()
    const again = await lockDataDir(dataDir)
    expect(Result.isSuccess(again)).toBe(true)
    if (Result.isSuccess(again)) await again.success.release()
  })
})
