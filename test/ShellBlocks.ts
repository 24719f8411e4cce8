// Running a document's shell blocks as a user would: bash with -euo pipefail, without KUBECONFIG (no
// block may reach a real cluster by accident) and without colour; background blocks are servers, each in
// its own process group, waited for until their first line and stopped as a group.
import { type ChildProcess, execFile, spawn } from "node:child_process"

/** What one block did. */
export interface Ran {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/** The environment blocks run in; `extra` is added (e.g. a PATH with the repository's binaries, or a KUBECONFIG naming a simulator). */
export const shellEnv = (extra: Readonly<Record<string, string>> = {}): NodeJS.ProcessEnv => {
  const copy: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: "1" }
  delete copy["KUBECONFIG"]
  return { ...copy, ...extra }
}

// Bounds for a machine far slower than an idle one (the install and build take about a minute there, a
// command a second): a block that hangs still fails, with its output, before its test's timeout.
export const blockBoundMs = 270_000
export const blockTestMs = 300_000
const firstLineBoundMs = 120_000

/** Runs a block to its end. */
export const runShell = (script: string, cwd: string, extra: Readonly<Record<string, string>> = {}): Promise<Ran> =>
  new Promise((resolve) => {
    execFile("bash", ["-euo", "pipefail", "-c", script], { cwd, timeout: blockBoundMs, env: shellEnv(extra) }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    )
  })

/** Starts a background block in its own process group (added to `started`); resolves with its first line of output. */
export const runBackground = (script: string, cwd: string, started: Array<ChildProcess>, extra: Readonly<Record<string, string>> = {}): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn("bash", ["-euo", "pipefail", "-c", script], { cwd, env: shellEnv(extra), detached: true, stdio: ["ignore", "pipe", "pipe"] })
    started.push(child)
    let stdout = ""
    let stderr = ""
    const timer = setTimeout(() => resolve({ code: -1, stdout, stderr: `${stderr}\n(no output within ${firstLineBoundMs / 1000} s)` }), firstLineBoundMs)
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString()
      if (stdout.includes("\n")) {
        clearTimeout(timer)
        resolve({ code: 0, stdout, stderr })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      resolve({ code: code ?? -1, stdout, stderr: `${stderr}\n(exited before it was stopped)` })
    })
  })

/** Stops a background block's whole group: npx, the shell and node all go. */
export const stopGroup = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve()
    child.once("exit", () => resolve())
    process.kill(-child.pid, "SIGTERM")
  })
