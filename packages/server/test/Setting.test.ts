// One setting's own Config, read alone (as readSettings reads each): a text it does not take fails it with a
// ConfigError whose message says what the text must be.
import { ConfigProvider, Effect, Exit } from "effect"
import { expect, test } from "vitest"
import { choiceSetting, listSetting, readSettings, switchSetting, textSetting, valueSetting } from "../src/config/Setting.ts"

const failureOf = (config: { readonly parse: (provider: ConfigProvider.ConfigProvider) => Effect.Effect<unknown, unknown> }, values: Record<string, string>) => {
  const exit = Effect.runSyncExit(config.parse(ConfigProvider.fromUnknown(values)))
  return Exit.isFailure(exit) ? String(exit.cause) : undefined
}

test("a setting's Config refuses a text it does not take with a message naming what it must be", () => {
  const even = valueSetting("even", { metavar: "N", meaning: "an even number", read: (t) => (t === "2" ? 2 : undefined), expected: "an even number", fallback: 2, defaultText: "2" })
  expect(failureOf(even.config, { even: "3" })).toContain("an even number")
  expect(failureOf(choiceSetting("format", ["text", "json"], "text", { meaning: "a format" }).config, { format: "xml" })).toContain("one of text, json")
  expect(failureOf(switchSetting("on", { meaning: "a switch" }).config, { on: "perhaps" })).toContain("true or false")
  expect(failureOf(even.config, { even: "2" })).toBeUndefined()
})

test("a setting declared without a variable is never read from the environment, not even from one named undefined", () => {
  const settings = { files: listSetting("files", { metavar: "FILE", meaning: "files" }), word: textSetting("word", { metavar: "W", meaning: "a word" }) }
  const read = Effect.runSync(readSettings(settings, { flags: {}, env: { undefined: "a.yaml", files: "b.yaml", word: "w" } }))
  expect(read).toEqual({ files: [], word: undefined })
})
