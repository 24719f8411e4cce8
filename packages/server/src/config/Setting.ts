// One setting of a program, declared once: the flag and the environment variable it is read from, what it
// means, its default and how its text is read. Its effect `Config` reads it from flags over environment over
// default; the command's help and the documentation's settings table are made from the same declaration.
import { Config, ConfigProvider, Effect, Option, Result, Schema, SchemaIssue } from "effect"

/** How a setting is given: one value, several (a flag given again, or its values listed), or a switch. */
export type SettingKind = "value" | "list" | "switch"

/** One setting: where it is read from, what it means, what it is when absent, and its `Config`. */
export interface Setting<A> {
  /** Its key, and its flag's name (`--name`) when it has a flag. */
  readonly name: string
  readonly kind: SettingKind
  /** Whether a command-line flag gives it (a secret such as a database URL is read from the environment only). */
  readonly flag: boolean
  /** The environment variable that gives it when no flag does. */
  readonly env?: string
  /** The value's placeholder in help, e.g. `FILE`; empty for a switch. */
  readonly metavar: string
  /** The only values it takes, if it has a fixed set. */
  readonly choices?: ReadonlyArray<string>
  /** What it sets, as help and the documentation say it. */
  readonly meaning: string
  /** Its default as a flag would spell it (`8080`, `24h`); absent when the default is not a value. */
  readonly defaultText?: string
  /** What holds when it is absent and its default is not a value ("one write token made for this run"). */
  readonly whenAbsent?: string
  /** What its text must be, in a problem's words: `a duration (e.g. 30s, 5m, 24h)`. */
  readonly expected: string
  /** Reads it from the `ConfigProvider` under its name: validated, or its default when absent. */
  readonly config: Config.Config<A>
}

/** What a setting reads as. */
export type SettingValue<S> = S extends Setting<infer A> ? A : never

/** The values of a record of settings. */
export type SettingValues<S extends Record<string, Setting<unknown>>> = { readonly [K in keyof S]: SettingValue<S[K]> }

/** A setting a command-line flag gives (every setting unless declared `environmentOnly`). */
export type FlagSetting<A> = Setting<A> & { readonly flag: true }

/** What every setting is declared with. */
export interface SettingInfo {
  readonly meaning: string
  readonly env?: string
}

// A text the setting does not take: the value is named with what it must be (the message is not what problems
// say: `readSettings` names the flag or variable it came from).
const invalid = (text: string, expected: string) => new Config.ConfigError(new Schema.SchemaError(new SchemaIssue.InvalidValue({ message: expected }, text)))

const readWith = <A>(name: string, read: (text: string) => A | undefined, expected: string): Config.Config<A> =>
  Config.String(name).pipe(Config.mapEffect((text) => {
    const value = read(text)
    return value === undefined ? Effect.fail(invalid(text, expected)) : Effect.succeed(value)
  }))

const declared = (name: string, info: SettingInfo) => ({ name, flag: true as const, meaning: info.meaning, ...(info.env === undefined ? {} : { env: info.env }) })

/** A value read by `read` (undefined when the text is not one), `fallback` when absent (`defaultText` as shown). */
export const valueSetting = <A>(
  name: string,
  info: SettingInfo & { readonly metavar: string; readonly read: (text: string) => A | undefined; readonly expected: string; readonly fallback: A; readonly defaultText: string }
): FlagSetting<A> => ({
  ...declared(name, info),
  kind: "value",
  metavar: info.metavar,
  defaultText: info.defaultText,
  expected: info.expected,
  config: readWith(name, info.read, info.expected).pipe(Config.withDefault(info.fallback))
})

/** A value read by `read` that may be left out: undefined then, and what holds instead is `defaultText` or `whenAbsent`. */
export const optionalSetting = <A>(
  name: string,
  info: SettingInfo & { readonly metavar: string; readonly read: (text: string) => A | undefined; readonly expected: string; readonly defaultText?: string; readonly whenAbsent?: string }
): FlagSetting<A | undefined> => ({
  ...declared(name, info),
  kind: "value",
  metavar: info.metavar,
  ...(info.defaultText === undefined ? {} : { defaultText: info.defaultText }),
  ...(info.whenAbsent === undefined ? {} : { whenAbsent: info.whenAbsent }),
  expected: info.expected,
  config: readWith(name, info.read, info.expected).pipe(Config.option, Config.map(Option.getOrUndefined))
})

/** Any non-empty text, such as a file's name, that may be left out. */
export const textSetting = (name: string, info: SettingInfo & { readonly metavar: string; readonly whenAbsent?: string }): FlagSetting<string | undefined> =>
  optionalSetting(name, { ...info, read: (text) => text, expected: "a text" })

/** One of a fixed set of words, `fallback` when absent. */
export const choiceSetting = <const C extends ReadonlyArray<string>>(name: string, choices: C, fallback: C[number], info: SettingInfo): FlagSetting<C[number]> => ({
  ...valueSetting(name, {
    ...info,
    metavar: choices.join("|"),
    read: (text) => choices.find((choice) => choice === text),
    expected: `one of ${choices.join(", ")}`,
    fallback,
    defaultText: fallback
  }),
  choices
})

const switchWords: Readonly<Record<string, boolean>> = { true: true, yes: true, on: true, "1": true, false: false, no: false, off: false, "0": false }

/** A switch: off unless given (a flag without a value; its variable `true` or `false`, `1` or `0`, `yes` or `no`, `on` or `off`). */
export const switchSetting = (name: string, info: SettingInfo): FlagSetting<boolean> => ({
  ...declared(name, info),
  kind: "switch",
  metavar: "",
  expected: "true or false",
  config: readWith(name, (text) => switchWords[text.toLowerCase()], "true or false").pipe(Config.withDefault(false))
})

/** Zero or more texts, such as files' names (a flag only). */
export const listSetting = (name: string, info: SettingInfo & { readonly metavar: string }): FlagSetting<ReadonlyArray<string>> => ({
  ...declared(name, info),
  kind: "list",
  metavar: info.metavar,
  expected: "a list of texts",
  config: Config.Array(Schema.String, name).pipe(Config.withDefault([] as ReadonlyArray<string>))
})

/** `setting` read from the environment only, never from a flag (a secret: a command line is visible to every user of the host). */
export const environmentOnly = <A>(setting: Setting<A>): Setting<A> & { readonly flag: false } => ({ ...setting, flag: false })

/** Settings could not be read: every problem, each naming the flag or variable it came from and what it must be. */
export class SettingsError extends Schema.TaggedError<SettingsError>()("SettingsError", {
  problems: Schema.Array(Schema.String)
}) {
  override get message() {
    return this.problems.join("; ")
  }
}

/** What settings are read from: the flags given (a switch given as `true`, a list as its values), and the environment. */
export interface SettingsInput {
  readonly flags: Readonly<Record<string, string | ReadonlyArray<string>>>
  readonly env: Readonly<Record<string, string | undefined>>
}

/** Where a setting is read from: its flag over its environment variable; an empty variable is absent. */
export const settingsProvider = (settings: Record<string, Setting<unknown>>, input: SettingsInput): ConfigProvider.ConfigProvider => {
  const list = Object.values(settings)
  const flags = Object.fromEntries(list.flatMap((s) => (s.flag ? [[s.name, input.flags[s.name]]] : [])))
  const env = Object.fromEntries(list.flatMap((s) => (s.env === undefined ? [] : [[s.name, input.env[s.env]]])))
  return ConfigProvider.orElse(ConfigProvider.fromUnknown(flags), ConfigProvider.fromEnvRecord(env))
}

// The flag or variable a setting's value came from, and its text there, for naming a problem with it.
const sourceOf = (setting: Setting<unknown>, input: SettingsInput): { readonly source: string; readonly text: string } => {
  const given = setting.flag ? input.flags[setting.name] : undefined
  if (given !== undefined) return { source: `--${setting.name}`, text: String(given) }
  return { source: setting.env ?? setting.name, text: setting.env === undefined ? "" : (input.env[setting.env] ?? "") }
}

/** Reads every setting, flag over environment over default, naming every problem at once. */
export const readSettings = <S extends Record<string, Setting<unknown>>>(settings: S, input: SettingsInput): Effect.Effect<SettingValues<S>, SettingsError> =>
  Effect.gen(function* () {
    const provider = settingsProvider(settings, input)
    const values: Record<string, unknown> = {}
    const problems: Array<string> = []
    for (const [key, setting] of Object.entries(settings)) {
      const read = yield* Effect.result(setting.config.parse(provider))
      if (Result.isSuccess(read)) values[key] = read.success
      else {
        const { source, text } = sourceOf(setting, input)
        problems.push(`${source} "${text}" is not ${setting.expected}`)
      }
    }
    if (problems.length > 0) return yield* new SettingsError({ problems })
    return values as SettingValues<S>
  })
