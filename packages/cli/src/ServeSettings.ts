// Every setting of `dispatch serve`: the job service's own (ServiceConfig in @dispatch/server) and the cluster it
// dispatches to. Its flags, the SETTINGS part of its help and docs/jobs.md's settings table are made from these
// declarations. Pure.
import { Option } from "effect"
import { Flag } from "effect/cli"
import { cell, withBlock } from "./FlagReference.ts"
import { type Setting, ServiceSettings, environmentOnly, listSetting, switchSetting, textSetting, valueSetting } from "@dispatch/server/config"

/** The cluster `dispatch serve` dispatches to: flags (one run's choice, not a deployment's), and where a pod's
 * credentials are, which a pod's environment says. */
export const TargetSettings = {
  kubeconfig: textSetting("kubeconfig", { metavar: "FILE", meaning: "dispatch to the cluster of this kubeconfig" }),
  cluster: switchSetting("cluster", { meaning: "dispatch to the cluster of client-node's default kubeconfig chain" }),
  sim: switchSetting("sim", { meaning: "dispatch to an embedded simulated cluster" }),
  runtime: listSetting("runtime", { metavar: "FILE", meaning: "runtime manifests the embedded simulator is seeded from (needs --sim)" }),
  config: textSetting("config", { metavar: "FILE", meaning: "the embedded simulator's backend config (needs --sim)" }),
  exec: switchSetting("exec", { meaning: "the embedded simulator runs each pod's command as a local child process (needs --sim)" }),
  "sim-kubeconfig-out": textSetting("sim-kubeconfig-out", { metavar: "FILE", meaning: "serve the embedded simulator on 127.0.0.1 too, for kubectl, and write its kubeconfig here (needs --sim)" }),
  // As client-node's in-cluster loader: the root its absolute paths are read under, so a test can stand in for a pod.
  "service-account-root": environmentOnly(
    valueSetting("service-account-root", {
      env: "DISPATCH_SERVICE_ACCOUNT_ROOT",
      metavar: "DIR",
      meaning:
        "in a pod (KUBERNETES_SERVICE_HOST set) with no cluster flag, dispatch as its ServiceAccount, from DIR/var/run/secrets/kubernetes.io/serviceaccount (token, ca.crt, namespace)",
      read: (text) => text,
      expected: "a directory",
      fallback: "/",
      defaultText: "/"
    })
  )
}

/** Every setting of `dispatch serve`, in the order its help lists them. */
export const ServeSettings = { ...ServiceSettings, ...TargetSettings }

/** The flags of a record of settings: those a flag gives. */
export type SettingFlags<S> = { readonly [K in keyof S as S[K] extends { readonly flag: false } ? never : K]: Flag.Flag<unknown> }

/** What holds when a setting is not given, as help says it: `default 8080`, `default: random`; undefined when nothing is said. */
const defaultPhrase = (setting: Setting<unknown>): string | undefined =>
  setting.defaultText !== undefined ? `default ${setting.defaultText}` : setting.whenAbsent !== undefined ? `default: ${setting.whenAbsent}` : undefined

/** A flag's description: the setting's meaning, then its default and its environment variable. */
export const flagDescription = (setting: Setting<unknown>): string => {
  const notes = [defaultPhrase(setting), setting.env === undefined ? undefined : `env ${setting.env}`].filter((n) => n !== undefined)
  return notes.length === 0 ? setting.meaning : `${setting.meaning} (${notes.join("; ")})`
}

/** The command-line flag of a setting: its text as written (the setting's `Config` reads and checks it), its
 * fixed set of words where it has one (for completions), and its default as help and docs/cli.md show it. */
export const flagOf = (setting: Setting<unknown>): Flag.Flag<unknown> => {
  const description = flagDescription(setting)
  switch (setting.kind) {
    case "switch":
      return Flag.Boolean(setting.name).pipe(Flag.withDescription(description), Flag.withDefault(false))
    case "list":
      return Flag.String(setting.name).pipe(Flag.withMetavar(setting.metavar), Flag.withDescription(description), Flag.atLeast(0))
    case "value": {
      const flag = (setting.choices === undefined ? Flag.String(setting.name) : Flag.Literals(setting.name, setting.choices)).pipe(Flag.withMetavar(setting.metavar), Flag.withDescription(description))
      return setting.defaultText === undefined ? (Flag.optional(flag) as Flag.Flag<Option.Option<string>>) : flag.pipe(Flag.withDefault(setting.defaultText))
    }
  }
}

/** The flags of the settings a flag gives, by name, in their order. */
export const settingFlags = <S extends Readonly<Record<string, Setting<unknown>>>>(settings: S): SettingFlags<S> =>
  Object.fromEntries(Object.values(settings).flatMap((s) => (s.flag ? [[s.name, flagOf(s)]] : []))) as SettingFlags<S>

const flagSpelling = (setting: Setting<unknown>): string => (!setting.flag ? "" : setting.kind === "switch" ? `--${setting.name}` : `--${setting.name} ${setting.metavar}${setting.kind === "list" ? " ..." : ""}`)

const defaultCell = (setting: Setting<unknown>): string => setting.defaultText ?? setting.whenAbsent ?? (setting.kind === "switch" ? "off" : "")

/** The SETTINGS part of `dispatch serve --help`: each setting's flag, environment variable, default and meaning. */
export const settingsHelp = (settings: Readonly<Record<string, Setting<unknown>>>): ReadonlyArray<string> => {
  const rows = [["FLAG", "ENVIRONMENT", "DEFAULT", "MEANING"], ...Object.values(settings).map((s) => [flagSpelling(s) || "-", s.env ?? "-", defaultCell(s) || "-", s.meaning])]
  const widths = [0, 1, 2].map((column) => Math.max(...rows.map((row) => (row[column] ?? "").length)))
  return [
    "SETTINGS",
    "  Each is read from its flag, else its environment variable (an empty one is unset), else its default.",
    ...rows.map((row) => `  ${row.map((text, column) => (column < 3 ? text.padEnd((widths[column] ?? 0) + 2) : text)).join("")}`.trimEnd())
  ]
}

/** The line that opens the generated settings table in docs/jobs.md. */
export const settingsTableStart = "<!-- serve-settings: made from dispatch serve's settings; do not edit by hand -->"

/** The line that closes it. */
export const settingsTableEnd = "<!-- /serve-settings -->"

const code = (text: string): string => (text === "" ? "" : cell(`\`${text}\``))

/** docs/jobs.md's table of `dispatch serve`'s settings, from its opening line to its closing one. */
export const settingsTable = (settings: Readonly<Record<string, Setting<unknown>>>): string =>
  [
    settingsTableStart,
    "",
    "| Flag | Environment | Default | What it sets |",
    "| --- | --- | --- | --- |",
    ...Object.values(settings).map((s) => `| ${code(flagSpelling(s))} | ${code(s.env ?? "")} | ${s.defaultText !== undefined ? code(s.defaultText) : cell(defaultCell(s))} | ${cell(s.meaning)} |`),
    "",
    settingsTableEnd
  ].join("\n")

/** `document` with its settings table replaced by `table`; undefined when it has none to replace. */
export const withSettingsTable = (document: string, table: string): string | undefined => withBlock(document, settingsTableStart, settingsTableEnd, table)
