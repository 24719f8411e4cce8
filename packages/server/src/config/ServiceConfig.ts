// The job service's settings as `dispatch serve` takes them, each declared once (flag, environment variable,
// default, meaning, validation) and read with effect's `Config`; and the `ServeOptions` they make.
import type { Layer } from "effect"
import type { Cluster, ClusterError } from "@dispatch/effects"
import type { ServeOptions } from "../Serve.ts"
import { parseDuration } from "@dispatch/kube"
import { choiceSetting, environmentOnly, optionalSetting, type SettingValues, switchSetting, textSetting, valueSetting } from "./Setting.ts"

export * from "./Setting.ts"

/** A TCP port, 0 to 65535 (0: any free port). */
const readPort = (text: string): number | undefined => (/^\d{1,5}$/.test(text) && Number(text) <= 65535 ? Number(text) : undefined)

const durationExpected = "a duration (e.g. 30s, 5m, 24h)"

/** The settings of the job service, in the order help lists them. */
export const ServiceSettings = {
  host: valueSetting("host", { env: "DISPATCH_HOST", metavar: "H", meaning: "the address to listen on", read: (text) => text, expected: "an address", fallback: "127.0.0.1", defaultText: "127.0.0.1" }),
  port: valueSetting("port", { env: "DISPATCH_PORT", metavar: "P", meaning: "the port to listen on", read: readPort, expected: "a port number (0-65535)", fallback: 8080, defaultText: "8080" }),
  "database-url": environmentOnly(
    textSetting("database-url", {
      env: "DATABASE_URL",
      metavar: "URL",
      meaning: "the PostgreSQL to store in, postgres://USER:PASSWORD@HOST:PORT/DATABASE (no flag: a command line is visible to every user of the host)",
      whenAbsent: "embedded PGlite in --data-dir"
    })
  ),
  "data-dir": valueSetting("data-dir", {
    env: "DISPATCH_DATA_DIR",
    metavar: "DIR",
    meaning: "PGlite's data directory (unused with DATABASE_URL), and with --sim the simulator's state",
    read: (text) => text,
    expected: "a directory",
    fallback: "dispatch-data",
    defaultText: "dispatch-data"
  }),
  tokens: textSetting("tokens", { env: "DISPATCH_TOKENS", metavar: "FILE", meaning: "a YAML or JSON list of token entries", whenAbsent: "one write token made for this run" }),
  instance: textSetting("instance", { env: "DISPATCH_INSTANCE", metavar: "NAME", meaning: "this process's name on its job claims", whenAbsent: "random" }),
  "log-format": choiceSetting("log-format", ["text", "json"], "text", { env: "DISPATCH_LOG_FORMAT", meaning: "each request's access-log line on stderr: text or json" }),
  signup: switchSetting("signup", { env: "DISPATCH_SIGNUP", meaning: "let anyone register a user (POST /api/v1/users, Dioptra's users.create)" }),
  "default-backend": textSetting("default-backend", { env: "DISPATCH_DEFAULT_BACKEND", metavar: "FILE", meaning: "a YAML or JSON queue backend that queues registered without one get" }),
  retention: optionalSetting("retention", {
    env: "DISPATCH_RETENTION",
    metavar: "D",
    meaning: "how long an ended job's TrainJob and runtime copy stay on the cluster",
    read: parseDuration,
    expected: durationExpected,
    defaultText: "24h"
  }),
  "sweep-grace": optionalSetting("sweep-grace", {
    env: "DISPATCH_SWEEP_GRACE",
    metavar: "D",
    meaning: "least age of a runtime copy no TrainJob owns before the sweeper deletes it",
    read: parseDuration,
    expected: durationExpected,
    defaultText: "1h"
  })
}

/** The service's settings as read. */
export type ServiceConfig = SettingValues<typeof ServiceSettings>

/** What the service takes besides its settings: what the files they name hold, the cluster, and the process's hooks. */
export interface ServiceParts {
  /** The token entries `tokens` names (or the one made for this run). */
  readonly tokens: ReadonlyArray<unknown>
  /** The queue backend `default-backend` names. */
  readonly defaultBackend?: unknown
  /** The cluster jobs are dispatched to; without one, jobs are stored, not dispatched. */
  readonly cluster?: Layer.Layer<Cluster, ClusterError>
  /** Where access-log lines and the dispatcher's lines go. */
  readonly log: (line: string) => void
  readonly onListening?: (url: string) => void
  readonly stop?: Promise<void>
}

/** The `ServeOptions` the settings and parts make: a database URL stores in PostgreSQL, else PGlite in the data directory. */
export const serveOptionsOf = (config: ServiceConfig, parts: ServiceParts): ServeOptions => ({
  host: config.host,
  port: config.port,
  ...(config["database-url"] === undefined ? { dataDir: config["data-dir"] } : { databaseUrl: config["database-url"] }),
  tokens: parts.tokens,
  accessLog: { format: config["log-format"], write: parts.log },
  signup: config.signup,
  ...(parts.onListening === undefined ? {} : { onListening: parts.onListening }),
  ...(parts.stop === undefined ? {} : { stop: parts.stop }),
  ...(parts.defaultBackend === undefined ? {} : { defaultBackend: parts.defaultBackend }),
  ...(parts.cluster === undefined
    ? {}
    : {
        dispatch: {
          cluster: parts.cluster,
          ...(config.instance === undefined ? {} : { instance: config.instance }),
          ...(config.retention === undefined ? {} : { retentionMs: config.retention }),
          ...(config["sweep-grace"] === undefined ? {} : { sweepGraceMs: config["sweep-grace"] }),
          log: parts.log
        }
      })
})
