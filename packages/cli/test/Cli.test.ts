// The command line read in-process through the CLI: each flag's words, what effect/cli stops at set aside
// and named, help anywhere and the version (completion scripts: e2e/Completion.test.ts).
import { readFileSync } from "node:fs"
import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { runCli } from "../src/Cli.ts"
import { Commands } from "../src/Commands.ts"
import { flagsOf } from "../src/FlagFacts.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { lineOf, recordingIo } from "./CommandLine.ts"

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

const value = fc.stringMatching(/^[a-z0-9./_][a-z0-9./_-]{0,15}$/)

describe("reading a command line with effect/cli", () => {
  test.prop([fc.array(fc.tuple(fc.constantFrom("request", "config"), value), { maxLength: 6 }), fc.boolean()])(
    "reads every --flag value and --flag=value pair back in order",
    async (pairs, equals) => {
      const argv = pairs.flatMap(([flag, v]) => (equals ? [`--${flag}=${v}`] : [`--${flag}`, v]))
      const { list, problems } = await lineOf(["start", ...argv])
      expect(problems).toEqual([])
      for (const flag of ["request", "config"]) expect(list.flags.get(flag) ?? []).toEqual(pairs.filter(([f]) => f === flag).map(([, v]) => v))
    }
  )

  it("takes switches, several values after a flag that takes many, and -o in every spelling", async () => {
    const { list } = await lineOf(["start", "--sim", "--runtime", "a", "b", "-o", "json"])
    expect(Object.fromEntries(list.flags)).toEqual({ sim: [""], runtime: ["a", "b"], output: ["json"] })
    for (const spelling of [["-o", "json"], ["-ojson"], ["-o=json"], ["--output", "json"], ["--output=json"]]) {
      expect((await lineOf(["find", ...spelling])).list.flags.get("output")).toEqual(["json"])
      // Flags before the command are the command's too.
      expect((await lineOf([...spelling, "find", "--sim"])).list.flags.get("output")).toEqual(["json"])
    }
    expect((await lineOf(["render", "--request", "-"])).list.flags.get("request")).toEqual(["-"])
  })

  it("sets aside what effect/cli stops at and names it, reading the rest", async () => {
    const { list, problems } = await lineOf(["render", "--colour", "red", "--request", "r", "stray", "--nope"])
    expect(problems).toEqual(["unknown option --colour", "unknown option --nope", 'unexpected argument "stray"'])
    expect(list.flags.get("request")).toEqual(["r"])
  })
})
