// The service's settings, read with effect's Config: flag over environment over default, every problem named
// with where it came from, and the ServeOptions they make.
import { fc, test } from "@fast-check/vitest"
import { Effect, Layer, Result } from "effect"
import { describe, expect, it } from "vitest"
import { Cluster } from "@dispatch/effects"
import {
  type ServiceConfig,
  ServiceSettings,
  type SettingsInput,
  SettingsError,
  environmentOnly,
  listSetting,
  readSettings,
  serveOptionsOf,
  switchSetting,
  textSetting,
  valueSetting
} from "../src/config/ServiceConfig.ts"
import { parseDuration } from "@dispatch/kube"
import { defaultRetentionMs, defaultSweepGraceMs } from "../src/dispatch/ClusterCleanup.ts"

const readWith = <S extends Parameters<typeof readSettings>[0]>(settings: S, input: Partial<SettingsInput>) =>
  Effect.runSync(Effect.result(readSettings(settings, { flags: {}, env: {}, ...input })))

const valuesOf = (input: Partial<SettingsInput>): ServiceConfig => {
  const read = readWith(ServiceSettings, input)
  if (Result.isFailure(read)) throw new Error(read.failure.problems.join("; "))
  return read.success
}

const problemsOf = (input: Partial<SettingsInput>): ReadonlyArray<string> => {
  const read = readWith(ServiceSettings, input)
  return Result.isFailure(read) ? read.failure.problems : []
}

const count = (settings: Record<string, { readonly name: string }>, name: string) => Object.values(settings).filter((s) => s.name === name).length

describe("the service's settings", () => {
  it("are each declared once, under their own name, each variable named for one setting", () => {
    for (const [key, setting] of Object.entries(ServiceSettings)) {
      expect(setting.name).toBe(key)
      expect(count(ServiceSettings, key)).toBe(1)
      expect(setting.meaning).not.toBe("")
    }
    const variables = Object.values(ServiceSettings).flatMap((s) => (s.env === undefined ? [] : [s.env]))
    expect(new Set(variables).size).toBe(variables.length)
  })

  it("are their defaults when neither flag nor variable gives them", () => {
    expect(valuesOf({})).toEqual({
      host: "127.0.0.1",
      port: 8080,
      "database-url": undefined,
      "data-dir": "dispatch-data",
      tokens: undefined,
      instance: undefined,
      "log-format": "text",
      signup: false,
      "default-backend": undefined,
      retention: undefined,
      "sweep-grace": undefined
    })
  })

  it("show the cleanup defaults the dispatcher applies when they are absent", () => {
    expect(parseDuration(ServiceSettings.retention.defaultText ?? "")).toBe(defaultRetentionMs)
    expect(parseDuration(ServiceSettings["sweep-grace"].defaultText ?? "")).toBe(defaultSweepGraceMs)
  })

  test.prop([fc.option(fc.integer({ min: 0, max: 65535 })), fc.option(fc.integer({ min: 0, max: 65535 }))])("take a flag over its variable over its default", (flag, env) => {
    const read = valuesOf({ flags: flag === null ? {} : { port: String(flag) }, env: env === null ? {} : { DISPATCH_PORT: String(env) } })
    expect(read.port).toBe(flag ?? env ?? 8080)
  })

  it("take every variable's value where no flag is given, and an empty variable as unset", () => {
    const read = valuesOf({
      env: {
        DISPATCH_HOST: "0.0.0.0",
        DISPATCH_PORT: "9090",
        DATABASE_URL: "postgres://u@h/d",
        DISPATCH_DATA_DIR: "",
        DISPATCH_TOKENS: "tokens.yaml",
        DISPATCH_INSTANCE: "a",
        DISPATCH_LOG_FORMAT: "json",
        DISPATCH_SIGNUP: "yes",
        DISPATCH_DEFAULT_BACKEND: "backend.yaml",
        DISPATCH_RETENTION: "48h",
        DISPATCH_SWEEP_GRACE: "90m"
      }
    })
    expect(read).toEqual({
      host: "0.0.0.0",
      port: 9090,
      "database-url": "postgres://u@h/d",
      "data-dir": "dispatch-data",
      tokens: "tokens.yaml",
      instance: "a",
      "log-format": "json",
      signup: true,
      "default-backend": "backend.yaml",
      retention: 48 * 3_600_000,
      "sweep-grace": 90 * 60_000
    })
  })

  it("read DATABASE_URL from the environment only: a flag of its name is not one of the settings'", () => {
    expect(valuesOf({ flags: { "database-url": "postgres://flag@h/d" } })["database-url"]).toBeUndefined()
    expect(valuesOf({ flags: { "database-url": "postgres://flag@h/d" }, env: { DATABASE_URL: "postgres://env@h/d" } })["database-url"]).toBe("postgres://env@h/d")
  })

  it("name every problem at once, each with the flag or variable it came from, in the settings' order", () => {
    expect(problemsOf({ flags: { port: "x", retention: "a day" }, env: { DISPATCH_LOG_FORMAT: "xml", DISPATCH_SIGNUP: "perhaps", DISPATCH_SWEEP_GRACE: "-1h", DISPATCH_RETENTION: "1h" } })).toEqual([
      '--port "x" is not a port number (0-65535)',
      'DISPATCH_LOG_FORMAT "xml" is not one of text, json',
      'DISPATCH_SIGNUP "perhaps" is not true or false',
      '--retention "a day" is not a duration (e.g. 30s, 5m, 24h)',
      'DISPATCH_SWEEP_GRACE "-1h" is not a duration (e.g. 30s, 5m, 24h)'
    ])
  })

  test.prop([fc.string()])("refuse a port only when it is not a whole number from 0 to 65535", (text) => {
    const fine = /^\d{1,5}$/.test(text) && Number(text) <= 65535
    expect(problemsOf({ env: { DISPATCH_PORT: text } })).toEqual(fine || text === "" ? [] : [`DISPATCH_PORT "${text}" is not a port number (0-65535)`])
  })

  it("take a port as a whole number from 0 to 65535 written in digits alone", () => {
    for (const [text, port] of [["0", 0], ["65535", 65535], ["00080", 80]] as const) expect(valuesOf({ env: { DISPATCH_PORT: text } }).port).toBe(port)
    for (const text of ["65536", " 12", "12 ", "1e3", "+1", "0x10", "123456", "8080a"]) expect(problemsOf({ flags: { port: text } })).toEqual([`--port "${text}" is not a port number (0-65535)`])
  })

  it("fail as SettingsError, a typed error holding the problems", () => {
    const read = readWith(ServiceSettings, { flags: { port: "65536" } })
    expect(Result.isFailure(read) && read.failure).toBeInstanceOf(SettingsError)
    expect(Result.isFailure(read) && read.failure._tag).toBe("SettingsError")
    expect(new SettingsError({ problems: ["a", "b"] }).message).toBe("a; b")
  })
})

describe("settings' kinds", () => {
  const settings = {
    on: switchSetting("on", { env: "ON", meaning: "a switch" }),
    files: listSetting("files", { metavar: "FILE", meaning: "files" }),
    word: textSetting("word", { env: "WORD", metavar: "W", meaning: "a word" }),
    secret: environmentOnly(textSetting("secret", { env: "SECRET", metavar: "S", meaning: "a secret" })),
    even: valueSetting("even", { metavar: "N", meaning: "an even number", read: (t) => (/^\d+$/.test(t) && Number(t) % 2 === 0 ? Number(t) : undefined), expected: "even", fallback: 2, defaultText: "2" })
  }

  it("a switch is off unless given; its variable takes the usual words for true and false", () => {
    const on = (input: Partial<SettingsInput>) => Result.getOrThrow(readWith(settings, input)).on
    expect(on({})).toBe(false)
    expect(on({ flags: { on: "true" } })).toBe(true)
    for (const word of ["true", "yes", "on", "1", "TRUE"]) expect(on({ env: { ON: word } })).toBe(true)
    for (const word of ["false", "no", "off", "0"]) expect(on({ env: { ON: word } })).toBe(false)
    expect(on({ flags: { on: "true" }, env: { ON: "false" } })).toBe(true)
  })

  it("a list takes every value of its flag, none when absent", () => {
    expect(Result.getOrThrow(readWith(settings, { flags: { files: ["a", "b"] } })).files).toEqual(["a", "b"])
    expect(Result.getOrThrow(readWith(settings, {})).files).toEqual([])
  })

  it("an environment-only setting ignores a flag of its name", () => {
    expect(settings.secret.flag).toBe(false)
    expect(Result.getOrThrow(readWith(settings, { flags: { secret: "f" } })).secret).toBeUndefined()
    expect(Result.getOrThrow(readWith(settings, { flags: { secret: "f" }, env: { SECRET: "e" } })).secret).toBe("e")
  })

  it("a value that its reader refuses is a problem however it was given, and its default only when absent", () => {
    expect(Result.getOrThrow(readWith(settings, {})).even).toBe(2)
    expect(readWith(settings, { flags: { even: "3" } })).toEqual(Result.fail(new SettingsError({ problems: ['--even "3" is not even'] })))
  })
})

describe("serveOptionsOf", () => {
  const parts = { tokens: [{ name: "a" }], log: () => undefined }

  it("stores in PGlite in the data directory unless DATABASE_URL names a PostgreSQL", () => {
    const pglite = serveOptionsOf(valuesOf({}), parts)
    expect(pglite).toMatchObject({ host: "127.0.0.1", port: 8080, dataDir: "dispatch-data", tokens: parts.tokens, signup: false, accessLog: { format: "text" } })
    expect(pglite.databaseUrl).toBeUndefined()
    const postgres = serveOptionsOf(valuesOf({ env: { DATABASE_URL: "postgres://u@h/d" } }), parts)
    expect(postgres.databaseUrl).toBe("postgres://u@h/d")
    expect(postgres.dataDir).toBeUndefined()
  })

  it("carries the parts it is given, and leaves out those it is not", () => {
    const stop = new Promise<void>(() => {})
    const onListening = () => undefined
    const backend = { kind: "plain" }
    const options = serveOptionsOf(valuesOf({}), { ...parts, onListening, stop, defaultBackend: backend })
    expect(options).toMatchObject({ onListening, stop, defaultBackend: backend, accessLog: { write: parts.log } })
    expect(Object.keys(serveOptionsOf(valuesOf({}), parts)).sort()).toEqual(["accessLog", "dataDir", "host", "port", "signup", "tokens"])
  })

  it("dispatches only with a cluster, with the cleanup settings and the instance name given", () => {
    expect(serveOptionsOf(valuesOf({ flags: { retention: "1h" } }), parts).dispatch).toBeUndefined()
    const cluster = Layer.succeed(Cluster, {} as never)
    const options = serveOptionsOf(valuesOf({ flags: { retention: "0", instance: "a" }, env: { DISPATCH_SWEEP_GRACE: "2h" } }), { ...parts, cluster })
    expect(options.dispatch).toMatchObject({ cluster, retentionMs: 0, sweepGraceMs: 2 * 3_600_000, instance: "a" })
    const plain = serveOptionsOf(valuesOf({}), { ...parts, cluster }).dispatch
    expect(plain).toBeDefined()
    // Left out, not given as undefined: the dispatcher's own defaults apply.
    expect(Object.keys(plain ?? {}).sort()).toEqual(["cluster", "log"])
  })
})
