// The shell completion scripts, run in the real bash, zsh and fish: what a user gets on Tab.
import { execFile, execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, describe, expect, it } from "vitest"
import { runCli } from "../src/Cli.ts"
import { Commands } from "../src/Commands.ts"
import { flagsOf as declaredFlags } from "../src/FlagFacts.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { recordingIo } from "./CommandLine.ts"

const run = async (argv: ReadonlyArray<string>) => {
  const t = recordingIo({})
  const code = await runCli(argv, t.io)
  return { code, stdout: t.out.join("\n"), stderr: t.err.join("\n") }
}

const shells = ["bash", "zsh", "fish"] as const
type Shell = (typeof shells)[number]

const dir = mkdtempSync(join(tmpdir(), "dispatch-completion-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const workDir = mkdtempSync(join(dir, "cwd-"))
writeFileSync(join(workDir, "request.json"), "{}")

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
const shellBoundMs = 120_000

/** Every candidate `shell` offers when the user presses Tab at the end of `line`, in order, without repeats. */
const complete = async (shell: Shell, line: string): Promise<ReadonlyArray<string>> => {
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

const topWords = [...new Set(Object.values(Commands).map((s) => s.words[0]))]
const flagsOf = (spec: (typeof Commands)[keyof typeof Commands]) => declaredFlags(spec).map((f) => `--${f.name}`)

describe("completion", { timeout: shellBoundMs * 4 }, () => {
  it.each(shells)("%s offers every command for `dispatch ` and only the matching ones for `dispatch lo`", async (shell) => {
    expect([...(await complete(shell, "dispatch "))].sort()).toEqual([...topWords].sort())
    expect(await complete(shell, "dispatch lo")).toEqual(["logs"])
  })

  it.each(shells)("%s offers a command's own flags: `dispatch logs --`, `dispatch render --req`", async (shell) => {
    const logs = await complete(shell, "dispatch logs --")
    for (const flag of flagsOf(Commands.logs)) expect(logs).toContain(flag)
    expect(logs).not.toContain("--request")
    expect(await complete(shell, "dispatch render --req")).toEqual(["--request"])
  })

  it.each(shells)("%s offers a command group's subcommands: `dispatch sim `", async (shell) => {
    expect(await complete(shell, "dispatch sim ")).toContain("serve")
  })

  it.each(shells)("%s offers file names for a file's flag: `dispatch render --request `, `dispatch start --runtime `", async (shell) => {
    expect(await complete(shell, "dispatch render --request ")).toContain("request.json")
    expect(await complete(shell, "dispatch start --runtime ")).toContain("request.json")
  })

  it.each(shells)("%s offers a flag's fixed values and the shells: `dispatch render --output `, `dispatch completion `", async (shell) => {
    expect([...(await complete(shell, "dispatch render --output "))].sort()).toEqual(["json", "text", "yaml"])
    expect([...(await complete(shell, "dispatch list -o "))].sort()).toEqual(["json", "name", "text", "wide", "yaml"])
    expect([...(await complete(shell, "dispatch completion "))].sort()).toEqual(["bash", "fish", "zsh"])
  })

  it.each(shells)("dispatch completion %s prints the same script as --completions, anywhere on the line", async (shell) => {
    const script = await run(["completion", shell])
    expect(script.code).toBe(ExitCode.ok)
    expect((await run(["--completions", shell])).stdout).toBe(script.stdout)
    expect((await run(["render", `--completions=${shell}`])).stdout).toBe(script.stdout)
  })

  it("refuses a shell it does not know: usage (2)", async () => {
    const bad = await run(["completion", "tcsh"])
    expect(bad.code).toBe(ExitCode.usage)
    expect(bad.stderr).toContain('"tcsh" is not one of bash, zsh, fish')
  })
})
