// The shell completion scripts, run in the real bash, zsh and fish: what a user gets on Tab.
import { describe, expect, it } from "vitest"
import { Commands } from "../../src/Commands.ts"
import { flagsOf as declaredFlags } from "../../src/FlagFacts.ts"
import { ExitCode } from "../../src/ExitCode.ts"
import { run, shellBoundMs, shellCompleter, shells } from "../ShellCompletion.ts"

const complete = shellCompleter()

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
