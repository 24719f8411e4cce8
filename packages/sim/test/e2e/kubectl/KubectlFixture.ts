// Running the real kubectl against a served simulator: to completion, or until its -v=6 log shows a
// request was made (for commands that stream, such as get --watch and logs -f).
import { execFile, spawn } from "node:child_process"
import { expect } from "vitest"
import type { Served } from "../../HttpFixture.ts"

/** What a kubectl run printed and how it exited. */
export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** Runs kubectl to completion. */
export const kubectl = (served: Served, ...args: ReadonlyArray<string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile("kubectl", [...args, "--request-timeout=20s"], { env: served.env, timeout: 40_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1
      resolve({ code, stdout, stderr })
    })
  })

/** Starts kubectl at -v=6 and settles once its log shows `seen` (or it exits), then when it exits. */
export const kubectlUntil = (
  served: Served,
  seen: RegExp,
  ...args: ReadonlyArray<string>
): { started: Promise<boolean>; done: Promise<Run>; output: () => string; stop: () => void } => {
  const child = spawn("kubectl", [...args, "-v=6", "--request-timeout=20s"], { env: served.env, timeout: 40_000 })
  let stdout = ""
  let stderr = ""
  let markStarted: (seen: boolean) => void = () => {}
  const started = new Promise<boolean>((resolve) => (markStarted = resolve))
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
    if (seen.test(stderr)) markStarted(true)
  })
  const done = new Promise<Run>((resolve) =>
    child.on("close", (code) => {
      markStarted(false)
      resolve({ code: code ?? 1, stdout, stderr })
    })
  )
  return { started, done, output: () => stdout, stop: () => child.kill() }
}

/** The output of a run that must have succeeded with nothing on stderr. */
export const ok = (run: Run): string => {
  expect(run.stderr).toBe("")
  expect(run.code).toBe(0)
  return run.stdout
}

