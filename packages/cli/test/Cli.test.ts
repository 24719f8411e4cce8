// Help anywhere and the version, read in-process through the CLI (completion scripts: e2e/Completion.test.ts).
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { runCli } from "../src/Cli.ts"
import { Commands } from "../src/Commands.ts"
import { flagsOf } from "../src/FlagFacts.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { recordingIo } from "./CommandLine.ts"

const run = async (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}) => {
  const t = recordingIo(env)
  const code = await runCli(argv, t.io)
  return { code, stdout: t.out.join("\n"), stderr: t.err.join("\n") }
}

const packageVersion = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string }).version

describe("help", { timeout: 120_000 }, () => {
  it.each(Object.values(Commands).map((spec) => [spec.words.join(" "), spec] as const))("dispatch %s --help shows its summary, every flag with its description, and its examples", async (_, spec) => {
    const help = await run([...spec.words, "--help"])
    expect(help).toMatchObject({ code: ExitCode.ok, stderr: "" })
    expect(help.stdout).toContain(spec.summary)
    for (const flag of flagsOf(spec)) {
      expect(help.stdout).toContain(`--${flag.name}`)
      expect(help.stdout).toContain(flag.description)
    }
    for (const example of "examples" in spec ? spec.examples : []) expect(help.stdout).toContain(example.command)
    // The same help from `dispatch help <command>` and from -h.
    expect((await run(["help", ...spec.words])).stdout).toBe(help.stdout)
    expect((await run([...spec.words, "-h"])).stdout).toBe(help.stdout)
  })

  it("is shown wherever --help is on the line, even after flags and values", async () => {
    const help = await run(["render", "--request", "R", "--help"])
    expect(help.code).toBe(ExitCode.ok)
    expect(help.stdout).toContain(Commands.render.summary)
    const sim = await run(["sim", "--help"])
    expect(sim.code).toBe(ExitCode.ok)
    expect(sim.stdout).toContain(Commands.simServe.summary)
  })

  it("lists every command and the exit codes for `dispatch`, `dispatch help` and `dispatch --help`", async () => {
    for (const argv of [[], ["help"], ["--help"]]) {
      const help = await run(argv)
      expect(help.code).toBe(ExitCode.ok)
      for (const spec of Object.values(Commands)) expect(help.stdout).toContain(`dispatch ${spec.words.join(" ")}`)
      expect(help.stdout).toContain("8 ErrOutcomeUnknown")
    }
  })

  it("says a command it does not know is unknown (usage, 2), for help too", async () => {
    for (const argv of [["help", "launch"], ["launch"], ["launch", "--help"], ["-o", "json", "launch"]]) {
      const unknown = await run(argv)
      expect(unknown.code).toBe(ExitCode.usage)
      expect(unknown.stderr).toContain('dispatch: unknown command "launch"')
    }
    expect(await run(["-o", "json"])).toMatchObject({ code: ExitCode.usage, stderr: expect.stringContaining("dispatch: no command given") })
  })

  it("uses no colour without a terminal (escape codes never reach a pipe)", async () => {
    expect((await run(["render", "--help"])).stdout).not.toContain("\x1b[")
  })
})

describe("version", () => {
  it("is the package's version for --version, -v and `dispatch version`", async () => {
    for (const argv of [["--version"], ["-v"], ["version"]]) expect(await run(argv)).toEqual({ code: ExitCode.ok, stdout: `dispatch ${packageVersion}`, stderr: "" })
  })
})
