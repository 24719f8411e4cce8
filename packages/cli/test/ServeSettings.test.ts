// `dispatch serve`'s settings: read from flags and environment by their declarations, shown by `--help` and in
// docs/jobs.md's table from the same declarations.
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { runCli } from "../src/Cli.ts"
import { Commands } from "../src/Commands.ts"
import { ExitCode } from "../src/ExitCode.ts"
import { flagsOf } from "../src/FlagFacts.ts"
import { parseServeArgs } from "../src/ServeArgs.ts"
import { ServeSettings, flagDescription, settingsTable, settingsTableEnd, settingsTableStart } from "../src/ServeSettings.ts"
import { lineOf, recordingIo } from "./CommandLine.ts"

const run = async (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}) => {
  const t = recordingIo(env)
  const code = await runCli(argv, t.io)
  return { code, stdout: t.out.join("\n"), stderr: t.err.join("\n") }
}

const parsed = async (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>> = {}) => {
  const line = await lineOf(["serve", ...argv])
  expect(line.problems).toEqual([])
  return parseServeArgs(line.list, env)
}

const settings = Object.values(ServeSettings)

describe("dispatch serve's settings", { timeout: 120_000 }, () => {
  it("are its flags, each described by its meaning, default and variable, and DATABASE_URL, which has no flag", () => {
    const flags = flagsOf(Commands.serve).filter((f) => f.name !== "output")
    expect(flags.map((f) => f.name)).toEqual(settings.filter((s) => s.flag).map((s) => s.name))
    for (const setting of settings.filter((s) => s.flag)) expect(flags.find((f) => f.name === setting.name)?.description).toBe(flagDescription(setting))
    expect(flagDescription(ServeSettings.retention)).toBe("how long an ended job's TrainJob and runtime copy stay on the cluster (default 24h; env DISPATCH_RETENTION)")
    expect(ServeSettings["database-url"]).toMatchObject({ flag: false, env: "DATABASE_URL" })
  })

  it("--help lists every setting on one line: its flag, its variable, its default and its meaning", async () => {
    const help = await run(["serve", "--help"])
    expect(help.code).toBe(ExitCode.ok)
    const part = help.stdout.slice(help.stdout.indexOf("\nSETTINGS\n"))
    expect(part).not.toBe(help.stdout)
    const lines = part.split("\n")
    for (const setting of settings) {
      const line = lines.find((l) => l.trimEnd().endsWith(setting.meaning) && (setting.flag ? l.includes(`--${setting.name} `) : l.includes(setting.env ?? "?")))
      expect(line, setting.name).toBeDefined()
      if (setting.env !== undefined) expect(line).toContain(setting.env)
      const shown = setting.defaultText ?? setting.whenAbsent
      if (shown !== undefined) expect(line).toContain(shown)
    }
    // The other commands' help is as it was: no settings part.
    expect((await run(["sim", "serve", "--help"])).stdout).not.toContain("SETTINGS")
  })

  it("docs/jobs.md's settings table is the one the declarations make", () => {
    const document = readFileSync(new URL("../../../docs/jobs.md", import.meta.url), "utf8")
    const start = document.indexOf(settingsTableStart)
    const end = document.indexOf(settingsTableEnd)
    expect(start).toBeGreaterThanOrEqual(0)
    expect(document.slice(start, end + settingsTableEnd.length)).toBe(settingsTable(ServeSettings))
    for (const setting of settings) expect(settingsTable(ServeSettings)).toContain(setting.meaning.replaceAll("|", "\\|"))
  })

  it("take a flag over its variable over its default", async () => {
    const env = { DISPATCH_PORT: "9090", DISPATCH_HOST: "0.0.0.0", DISPATCH_LOG_FORMAT: "json", DISPATCH_SIGNUP: "true", DATABASE_URL: "postgres://u@h/d" }
    const fromEnv = await parsed([], env)
    expect(fromEnv).toMatchObject({ args: { port: 9090, host: "0.0.0.0", logFormat: "json", signup: true, databaseUrl: "postgres://u@h/d", dataDir: "dispatch-data" } })
    const fromFlags = await parsed(["--port", "7070", "--log-format", "text"], env)
    expect(fromFlags).toMatchObject({ args: { port: 7070, host: "0.0.0.0", logFormat: "text" } })
    const defaults = await parsed([], { DATABASE_URL: "" })
    expect(defaults).toMatchObject({ args: { port: 8080, host: "127.0.0.1", logFormat: "text", signup: false, target: { _tag: "None" } } })
    expect("args" in defaults ? defaults.args.databaseUrl : "refused").toBeUndefined()
  })

  it("name every problem of the line and the environment at once, exit 2, starting nothing", async () => {
    const bad = await run(["serve", "--port", "x", "--sim", "--kubeconfig", "k", "--log-format", "xml"], { DISPATCH_LOG_FORMAT: "yaml", DISPATCH_RETENTION: "a day", DISPATCH_SIGNUP: "perhaps" })
    expect(bad.code).toBe(ExitCode.usage)
    for (const problem of [
      '--log-format "xml" is not one of text, json',
      '--port "x" is not a port number (0-65535)',
      'DISPATCH_SIGNUP "perhaps" is not true or false',
      'DISPATCH_RETENTION "a day" is not a duration (e.g. 30s, 5m, 24h)',
      "--sim, --cluster and --kubeconfig are alternatives: give one"
    ])
      expect(bad.stderr).toContain(problem)
    // A flag the line refused is named once, and its variable is not read in its place.
    expect(bad.stderr.split('--log-format "xml"').length).toBe(2)
    expect(bad.stderr).not.toContain("DISPATCH_LOG_FORMAT")
    expect(bad.stdout).toBe("")
  })

  it("has no --database-url flag: a database URL, with its password, stays off the command line", async () => {
    const refused = await run(["serve", "--database-url=postgres://u:p@h/d"])
    expect(refused.code).toBe(ExitCode.usage)
    expect(refused.stderr).toContain("unknown option --database-url")
  })
})
