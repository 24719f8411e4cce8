import { test } from "@fast-check/vitest"
import fc from "fast-check"
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Result } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { renderStart, WORKDIR_MISSING_EXIT, type StartRequest } from "../src/index.ts"
import { envKey, exampleRequest, plainConfig, runtimeOf, text } from "./Generators.ts"

interface Run {
  readonly command: ReadonlyArray<string>
  readonly workDir?: string
  readonly env?: Record<string, string>
  // The shell that plays /bin/sh: images differ (dash on Debian and Ubuntu, bash on Red Hat's).
  readonly shell?: string
  readonly cwd?: string
  // Whether the test adds its own PATH, so that a bare program name resolves.
  readonly path?: boolean
}

// The rendered command, run with a real shell and the rendered env, exactly as the container would.
// stdin is not a pipe: bash takes a socket on stdin for a remote shell and would read ~/.bashrc.
const run = (r: Run) => {
  const request: StartRequest = {
    ...exampleRequest,
    spec: { ...exampleRequest.spec, command: [...r.command], env: r.env ?? exampleRequest.spec.env, ...(r.workDir === undefined ? {} : { workDir: r.workDir }) }
  }
  const rendered = renderStart(request, plainConfig, runtimeOf())
  if (Result.isFailure(rendered)) throw new Error(JSON.stringify(rendered.failure))
  const trainer = (rendered.success.trainJob["spec"] as Record<string, any>)["trainer"]
  const argv = trainer["command"] as Array<string>
  expect(argv[0]).toBe("/bin/sh")
  const env = Object.fromEntries((trainer["env"] as Array<{ name: string; value: string }>).map((e) => [e.name, e.value]))
  const spawned = spawnSync(r.shell ?? argv[0]!, argv.slice(1), { env: { ...(r.path === false ? {} : { PATH: process.env["PATH"] ?? "/usr/bin:/bin" }), ...env }, cwd: r.cwd ?? "/", stdio: ["ignore", "pipe", "pipe"] })
  return { ...spawned, env }
}

const scratch = mkdtempSync(join(tmpdir(), "dispatch-prologue-"))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

// Every POSIX shell on this machine that an image's /bin/sh may be.
const shells = ["/bin/sh", "/bin/dash", "/bin/bash", "/bin/busybox"].filter((s) => existsSync(s))
const shellArgv = (shell: string) => (shell.endsWith("busybox") ? undefined : shell)

const tricky = fc.constantFrom("a b", "'single'", '"double"', "$(touch /tmp/pwned)", "`id`", "*", "?", "[a-z]*", "$HOME", "${PATH}", "line\nbreak", "back\\slash", "-x", "--", "", " ", "\t", "é漢🙂", "%s%d")
const arg = fc.oneof(tricky, fc.string({ unit: "grapheme", maxLength: 30 }).filter((s) => !s.includes("\u0000")))

// The variables a POSIX shell sets itself before or while running any script (IFS, PPID and OPTIND at
// start-up, PWD always, OLDPWD on cd): no prologue can pass a job's value for these through.
const SHELL_OWNED = new Set(["IFS", "PPID", "OPTIND", "PWD", "OLDPWD"])
// bash also owns these, whatever the script: it keeps LINENO and SHLVL current and drops the others.
const BASH_OWNED = new Set(["LINENO", "SHLVL", "_", "SHELLOPTS", "BASHOPTS", "PS1", "PS2", "PS4", "RANDOM", "SRANDOM", "SECONDS", "EPOCHSECONDS", "EPOCHREALTIME", "HISTCMD", "BASHPID"])
const ownedBy = (shell: string, name: string): boolean => SHELL_OWNED.has(name) || (shell.endsWith("bash") && (BASH_OWNED.has(name) || /^(BASH|COMP_)/.test(name)))
// Names a prologue might be tempted to keep its own state in, and the variables cd consults.
const likelyNames = fc.constantFrom("d", "dir", "w", "wd", "workdir", "WORKDIR", "CDPATH", "HOME", "ENV", "PATH", "LINENO", "_")
const jobEnv = fc.dictionary(fc.oneof(likelyNames, envKey).filter((k) => !SHELL_OWNED.has(k)), fc.oneof(text(20), tricky), { maxKeys: 12 })

// What `env -0` printed, as a map.
const envSeen = (stdout: Buffer): Record<string, string> =>
  Object.fromEntries(
    stdout
      .toString("utf8")
      .split("\u0000")
      .filter((entry) => entry !== "")
      .map((entry) => [entry.slice(0, entry.indexOf("=")), entry.slice(entry.indexOf("=") + 1)])
  )

// A value as it arrives in a process's environment: UTF-8 encoded (a lone surrogate becomes U+FFFD).
const asEnvValue = (value: string): string => Buffer.from(value, "utf8").toString("utf8")

describe("the prologue under /bin/sh", () => {
  test.prop([fc.array(arg, { maxLength: 12 })], { numRuns: 40 })("passes every argument through byte for byte", (args) => {
    const r = run({ command: ["printf", "%s\\0", ...args] })
    expect(r.status).toBe(0)
    const expected = args.length === 0 ? "\u0000" : args.map((a) => `${a}\u0000`).join("")
    expect(r.stdout.toString("utf8")).toBe(expected)
  })

  test.prop([jobEnv, fc.constantFrom(undefined, "/", "sub dir", "/tmp")], { numRuns: 40 })(
    "leaves every job variable, and dispatch's, as the job set it",
    (env, workDir) => {
      mkdirSync(join(scratch, "sub dir"), { recursive: true })
      for (const shell of shells) {
        const r = run({ command: ["/usr/bin/env", "-0"], env, ...(workDir === undefined ? {} : { workDir }), shell: shellArgv(shell) ?? shell, cwd: scratch, path: false })
        expect(r.status, `${shell}: ${r.stderr.toString()}`).toBe(0)
        const seen = envSeen(r.stdout)
        for (const [name, value] of Object.entries(r.env)) {
          if (!ownedBy(shell, name)) expect([shell, name, seen[name]]).toEqual([shell, name, asEnvValue(value)])
        }
        // Nothing else appears but what the shell itself owns.
        expect(Object.keys(seen).filter((name) => !(name in r.env) && !ownedBy(shell, name))).toEqual([])
      }
    }
  )

  it("a job variable named d keeps its value (the prologue keeps no state of its own)", () => {
    const r = run({ command: ["sh", "-c", 'echo "d=$d"'], env: { d: "my-dataset-dir" }, workDir: "/" })
    expect(r.stdout.toString()).toBe("d=my-dataset-dir\n")
  })

  it.each(shells)("under %s the program replaces the shell (exec), so a signal to the container's process reaches it", (shell) => {
    const r = run({ command: [process.execPath, "-e", "process.stdout.write(`${process.pid} ${process.ppid}`)"], workDir: "/tmp", shell })
    expect(r.status).toBe(0)
    expect(r.stdout.toString()).toBe(`${r.pid} ${process.pid}`)
  })

  it("enters the workdir, absolute or relative, including one with spaces", () => {
    const spaced = join(scratch, "with space")
    mkdirSync(spaced, { recursive: true })
    expect(run({ command: ["pwd"], workDir: spaced }).stdout.toString()).toBe(`${spaced}\n`)
    expect(run({ command: ["pwd"], workDir: spaced.slice(1) }).stdout.toString()).toBe(`${spaced}\n`)
  })

  it("resolves a relative workdir against the container's working directory, never CDPATH", () => {
    mkdirSync(join(scratch, "here", "data"), { recursive: true })
    mkdirSync(join(scratch, "elsewhere", "data"), { recursive: true })
    const r = run({ command: ["pwd"], workDir: "data", env: { CDPATH: join(scratch, "elsewhere") }, cwd: join(scratch, "here") })
    expect([r.status, r.stdout.toString()]).toEqual([0, `${join(scratch, "here", "data")}\n`])
    const missing = run({ command: ["pwd"], workDir: "data", env: { CDPATH: join(scratch, "elsewhere") }, cwd: scratch })
    expect(missing.status).toBe(WORKDIR_MISSING_EXIT)
  })

  it("a workdir named like an option is a directory", () => {
    mkdirSync(join(scratch, "-P"), { recursive: true })
    const r = run({ command: ["pwd"], workDir: "-P", cwd: scratch })
    expect([r.status, r.stdout.toString()]).toEqual([0, `${join(scratch, "-P")}\n`])
  })

  it("exits 125 when the workdir is missing, without running the command, naming the directory", () => {
    const missing = join(scratch, "missing")
    const r = run({ command: ["touch", join(scratch, "ran")], workDir: missing })
    expect(r.status).toBe(WORKDIR_MISSING_EXIT)
    expect(r.stderr.toString()).toBe(`dispatch-prologue: cannot enter workdir ${missing}\n`)
    expect(existsSync(join(scratch, "ran"))).toBe(false)
  })

  it("passes the command's exit status through", () => {
    expect(run({ command: ["sh", "-c", "exit 7"] }).status).toBe(7)
  })
})
