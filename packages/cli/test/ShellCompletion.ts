// Running dispatch's completion scripts in the real bash, zsh and fish: what a user gets on Tab.
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, expect } from "vitest"
import { runCli } from "../src/Cli.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { recordingIo } from "./CommandLine.ts"

export const run = async (argv: ReadonlyArray<string>) => {
  const t = recordingIo({})
  const code = await runCli(argv, t.io)
  return { code, stdout: t.out.join("\n"), stderr: t.err.join("\n") }
}

export const shells = ["bash", "zsh", "fish"] as const
export type Shell = (typeof shells)[number]

// A missing shell fails the test (CI's .ci/run installs all three): a completion script never run in
// its shell proves nothing.
const requireShell = (shell: Shell): void => {
  try {
    execFileSync(shell, ["-c", "exit 0"], { stdio: "ignore" })
  } catch {
    throw new Error(`${shell} is not installed; install it (apt-get install -y ${shell}) to test its completion script`)
  }
}

const zshHarness = fileURLToPath(new URL("zsh-complete.zsh", import.meta.url))
// Generous: one completion takes well under a second on an idle machine.
export const shellBoundMs = 120_000

/** A completer for one test file, in a scratch directory of its own that is removed after the file's
 * tests: it gives every candidate `shell` offers when the user presses Tab at the end of `line`, in
 * order, without repeats. */
export const shellCompleter = (): ((shell: Shell, line: string) => Promise<ReadonlyArray<string>>) => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-completion-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const workDir = mkdtempSync(join(dir, "cwd-"))
  writeFileSync(join(workDir, "request.json"), "{}")
  return (shell, line) => complete(dir, workDir, shell, line)
}

const complete = async (dir: string, workDir: string, shell: Shell, line: string): Promise<ReadonlyArray<string>> => {
  requireShell(shell)
  const script = await run(["completion", shell])
  expect(script.code).toBe(ExitCode.ok)
  // File names complete from here: it holds only a request file.
  const options = { encoding: "utf8", timeout: shellBoundMs, cwd: workDir } as const
  let offered: string
  switch (shell) {
    case "bash": {
      const file = join(dir, "dispatch.bash")
      writeFileSync(file, script.stdout)
      const words = line.split(" ")
      // What bash's readline sets before it calls a `complete -F` function.
      const call = `source "$1"; COMP_WORDS=("\${@:2}"); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); COMP_LINE="\${COMP_WORDS[*]}"; COMP_POINT=\${#COMP_LINE}; fn=$(complete -p dispatch | sed -E 's/.*-F ([^ ]+).*/\\1/'); "$fn" dispatch "\${COMP_WORDS[COMP_CWORD]}" "\${COMP_WORDS[COMP_CWORD-1]}"; printf '%s\\n' "\${COMPREPLY[@]}"`
      offered = (await promisify(execFile)("bash", ["-c", call, "bash", file, ...words], options)).stdout
      break
    }
    case "zsh": {
      // zsh autoloads `_dispatch` from a directory on fpath, as its installation note says.
      const fpathDir = mkdtempSync(join(dir, "zsh-"))
      writeFileSync(join(fpathDir, "_dispatch"), script.stdout)
      const out = join(fpathDir, "offered")
      await promisify(execFile)("zsh", ["-f", zshHarness, fpathDir, line, out], options)
      offered = readFileSync(out, "utf8").replace(/^<done>\n/m, "")
      break
    }
    case "fish": {
      const file = join(dir, "dispatch.fish")
      writeFileSync(file, script.stdout)
      // `complete -C` prints what fish would offer for the line: the candidate, a tab, its description.
      offered = (await promisify(execFile)("fish", ["--no-config", "-c", 'source $argv[1]; complete -C $argv[2]', file, line], options)).stdout
      break
    }
  }
  return [...new Set(offered.split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]!))]
}

