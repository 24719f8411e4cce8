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

  it("a flag the line refused is named once, and its variable is not read in its place", async () => {
    expect(await parsed(["--log-format", "xml", "--port", "1"], { DISPATCH_LOG_FORMAT: "yaml", DISPATCH_PORT: "x" })).toEqual({
      _tag: "UsageError",
      problems: ['--log-format "xml" is not one of text, json']
    })
  })

  it("relate the cluster's settings: one target, and the simulator's settings only with --sim", async () => {
    expect(await parsed(["--sim", "--runtime", "a.yaml", "--runtime", "b,c.yaml", "--exec", "--config", "k.json", "--sim-kubeconfig-out", "sim.kubeconfig"])).toMatchObject({
      args: { target: { _tag: "Sim", runtimes: ["a.yaml", "b,c.yaml"], exec: true, kubeconfigOut: "sim.kubeconfig" }, config: "k.json" }
    })
    const plainSim = await parsed(["--sim"])
    expect("args" in plainSim && plainSim.args.target).toEqual({ _tag: "Sim", runtimes: [] })
    expect("args" in plainSim && "config" in plainSim.args).toBe(false)
    expect(await parsed(["--kubeconfig", "kc"])).toMatchObject({ args: { target: { _tag: "Kube", kubeconfig: "kc" } } })
    const cluster = await parsed(["--cluster"])
    expect("args" in cluster && cluster.args.target).toEqual({ _tag: "Kube" })
    expect(await parsed(["--runtime", "a.yaml", "--exec", "--config", "k.json", "--sim-kubeconfig-out", "o", "--cluster", "--kubeconfig", "kc"], { DISPATCH_PORT: "x" })).toEqual({
      _tag: "UsageError",
      problems: [
        'DISPATCH_PORT "x" is not a port number (0-65535)',
        "--sim, --cluster and --kubeconfig are alternatives: give one",
        "--runtime seeds the embedded simulator: it needs --sim",
        "--exec runs the embedded simulator's pods as processes: it needs --sim",
        "--config names the embedded simulator's backend: it needs --sim",
        "--sim-kubeconfig-out serves the embedded simulator for kubectl: it needs --sim"
      ]
    })
  })

  it("give every service setting to the command, and all of them as the service's settings", async () => {
    const read = await parsed(["--tokens", "t.yaml", "--instance", "a", "--signup", "--default-backend", "b.yaml", "--retention", "1h", "--sweep-grace", "2h", "--data-dir", "d", "--host", "::1"], { DATABASE_URL: "postgres://u@h/d" })
    expect(read).toMatchObject({
      args: {
        host: "::1",
        dataDir: "d",
        databaseUrl: "postgres://u@h/d",
        tokens: "t.yaml",
        instance: "a",
        signup: true,
        defaultBackend: "b.yaml",
        retentionMs: 3_600_000,
        sweepGraceMs: 7_200_000,
        service: { host: "::1", "data-dir": "d", "database-url": "postgres://u@h/d", tokens: "t.yaml", instance: "a", signup: true, "default-backend": "b.yaml", retention: 3_600_000, "sweep-grace": 7_200_000 }
      }
    })
    const none = await parsed([])
    expect("args" in none && Object.keys(none.args).sort()).toEqual(["dataDir", "host", "logFormat", "port", "service", "serviceAccountRoot", "signup", "target"])
  })

  it("has no --database-url flag: a database URL, with its password, stays off the command line", async () => {
    const refused = await run(["serve", "--database-url=postgres://u:p@h/d"])
    expect(refused.code).toBe(ExitCode.usage)
    expect(refused.stderr).toContain("unknown option --database-url")
  })
})
