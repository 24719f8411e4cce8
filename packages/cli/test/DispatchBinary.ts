// Runs the BUILT `dispatch` binary as a subprocess, as a user would (`node packages/cli/bin/dispatch.js`),
// and makes sure what it runs is built from the current sources.
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { serveReadyLine } from "../src/commands/ServeReady.ts"

/** The package directory and the repository root. */
export const cliDir = fileURLToPath(new URL("..", import.meta.url))
export const repoRoot = join(cliDir, "..", "..")
export const binary = join(cliDir, "bin", "dispatch.js")

/** The bundled examples, as the README names them from the repository root. */
export const example = (file: string): string => join(repoRoot, "examples", file)

/** What one run of the binary did. */
export interface Run {
  readonly code: number
  readonly stdout: string
  readonly stderr: string
}

/**
 * How long one run of the binary, or a server's start, may take before it counts as hung: a run takes
 * about a second on an idle machine (`demo service` about five), and this bound holds on a machine far
 * more than 5x slower, with the rest of the suite running beside it.
 */
export const processBoundMs = 300_000

/** The timeout of a test that runs the binary (or kubectl) one after another a few times. */
export const processTestMs = 600_000

let built: Promise<void> | undefined

/**
 * Brings the binary up to date with the sources (`tsc -b packages/cli`, which does nothing when it is
 * already): the tests run what a user runs, never a stale build. Other packages' type errors do not
 * stop tsc from emitting, so only a missing binary fails here.
 */
export const ensureBuilt = (): Promise<void> => {
  built ??= new Promise<void>((resolve, reject) =>
    execFile("npx", ["tsc", "-b", cliDir], { cwd: repoRoot, timeout: processBoundMs }, () =>
      existsSync(join(cliDir, "dist", "main.js")) ? resolve() : reject(new Error("packages/cli was not built: run `npx tsc -b packages/cli`"))
    )
  )
  return built
}

/** Runs `dispatch args...` in `cwd` (the repository root by default) and collects its output. */
export const dispatch = (args: ReadonlyArray<string>, cwd: string = repoRoot): Promise<Run> =>
  new Promise((resolve) => {
    execFile("node", [binary, ...args], { cwd, timeout: processBoundMs, env: { ...process.env, NO_COLOR: "1" } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
      resolve({ code, stdout, stderr })
    })
  })

/** Runs `dispatch args...` with `input` on its standard input and `env` over this process's (NO_COLOR unset unless given). */
export const dispatchWith = (args: ReadonlyArray<string>, options: { readonly env?: Readonly<Record<string, string | undefined>>; readonly input?: string } = {}): Promise<Run> =>
  new Promise((resolve) => {
    const env = { ...process.env, ...options.env }
    if (options.env?.["NO_COLOR"] === undefined) delete env["NO_COLOR"]
    const child = execFile("node", [binary, ...args], { cwd: repoRoot, timeout: processBoundMs, env }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
      resolve({ code, stdout, stderr })
    })
    child.stdin?.end(options.input ?? "")
  })

/** Runs `dispatch args...` under a pseudo-terminal (`script`), as a user at a terminal would: stdout and
 * stderr both reach the terminal, so the output is their mix, escape codes included. */
export const dispatchOnTerminal = (args: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}): Promise<Run> => {
  const quoted = ["node", binary, ...args].map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(" ")
  return new Promise((resolve) => {
    const merged = { ...process.env, ...env }
    if (env["NO_COLOR"] === undefined) delete merged["NO_COLOR"]
    execFile("script", ["-qec", quoted, "/dev/null"], { cwd: repoRoot, timeout: processBoundMs, env: merged }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1
      resolve({ code, stdout, stderr })
    })
  })
}

/** A dispatch server (`sim serve` or the job service) running in the background: its URL once it listens, and how to stop it. */
export interface Served {
  readonly url: string
  readonly child: ChildProcess
  readonly stderr: () => string
  readonly stop: () => Promise<number | null>
}

/** Starts `dispatch <words> --port 0 args...` and waits until it prints its URL (the job service adds `/api/v1`) and,
 * for the job service, its ready line. */
export const background = (
  words: ReadonlyArray<string>,
  args: ReadonlyArray<string>,
  cwd: string = repoRoot,
  env: Readonly<Record<string, string>> = {}
): Promise<Served> =>
  new Promise((resolve, reject) => {
    const child = spawn("node", [binary, ...words, "--port", "0", ...args], { cwd, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } })
    let out = ""
    let err = ""
    const stop = () =>
      new Promise<number | null>((done) => {
        if (child.exitCode !== null) return done(child.exitCode)
        child.once("exit", (code) => done(code))
        child.kill("SIGTERM")
      })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${words.join(" ")} did not start within ${processBoundMs} ms: ${err}`))
    }, processBoundMs)
    // The job service prints its URL once it listens and its ready line once it serves (its database open): a
    // test gets it serving. `sim serve` serves once it prints its URL.
    const serving = words[0] !== "serve"
    const settle = () => {
      const url = /^(http:\/\/127\.0\.0\.1:\d+)(\/api\/v1)?\n/.exec(out)?.[1]
      if (url === undefined || !(serving || new RegExp(`^${serveReadyLine}`, "m").test(err))) return
      clearTimeout(timer)
      resolve({ url, child, stderr: () => err, stop })
    }
    child.stderr.on("data", (chunk: Buffer) => {
      err += chunk.toString()
      settle()
    })
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      settle()
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${words.join(" ")} exited ${code}: ${err}`))
    })
  })

/** Starts `dispatch sim serve args...` and waits until it prints its URL. */
export const serve = (args: ReadonlyArray<string>, cwd: string = repoRoot): Promise<Served> => background(["sim", "serve"], args, cwd)

/** Runs the real kubectl. */
export const kubectl = (args: ReadonlyArray<string>): Promise<Run> =>
  new Promise((resolve) => {
    execFile("kubectl", [...args], { timeout: processBoundMs }, (error, stdout, stderr) => {
      resolve({ code: error === null ? 0 : typeof error.code === "number" ? error.code : -1, stdout, stderr })
    })
  })
