// client-node authenticates a request through its public KubeConfig.applyToHTTPSOptions, which fills in a
// request's options: its headers (a token, impersonation, what an auth plugin says), basic auth, the TLS
// material, and a new http(s).Agent for it, on every call. When every credential is written in the
// kubeconfig itself (a token, basic auth, inline certificates and CA, impersonation), that answer is the
// same each time: it is kept until the current context, cluster or user changes in any field. Credentials
// that live elsewhere are asked of client-node call by call, as before: token, certificate and CA files may
// be rotated, exec and auth-provider plugins' tokens expire, and authenticators added to the KubeConfig
// decide for themselves. A proxy's agent is not kept either: it is used as it is, for one request.
import type { KubeConfig } from "@kubernetes/client-node"
import type { Agent } from "node:http"
import type { RequestOptions } from "node:https"

/** The TLS options a connection to the cluster is made with (what client-node sets from the kubeconfig:
 * `ca`, `cert`, `key`, `pfx`, `passphrase`, `rejectUnauthorized`, `servername`). */
export type TlsOptions = Readonly<Record<string, unknown>>

/** What client-node's applyToHTTPSOptions gives a request: its headers, TLS material and agent. */
export interface Authentication {
  readonly headers: Readonly<Record<string, string>>
  readonly tls: TlsOptions
  /** The agent client-node made for the request (it carries the same TLS material, or a proxy). */
  readonly agent: Agent | undefined
  /** Whether the cluster names a proxy: then `agent` is the proxy's, and the request goes through it. */
  readonly proxied: boolean
}

// The options of node:https that client-node sets from the kubeconfig, and that decide which connections
// are interchangeable.
const tlsKeys = ["ca", "cert", "key", "pfx", "passphrase", "rejectUnauthorized", "servername"] as const

// Headers as one string each (an array is joined as HTTP joins repeated headers).
const headerText = (value: unknown): string => (Array.isArray(value) ? value.join(", ") : String(value))

const applied = async (config: KubeConfig): Promise<Authentication> => {
  const options: RequestOptions = {}
  await config.applyToHTTPSOptions(options)
  const cluster = config.getCurrentCluster()
  const headers: Record<string, string> = {}
  for (const [key, value] of Object.entries(options.headers ?? {})) if (value !== undefined) headers[key] = headerText(value)
  // Basic auth arrives as `auth` (user:password); a token's bearer header, when the user has both, wins.
  if (typeof options.auth === "string" && headers["Authorization"] === undefined) headers["Authorization"] = `Basic ${Buffer.from(options.auth).toString("base64")}`
  const given = options as Readonly<Record<string, unknown>>
  const tls: Record<string, unknown> = Object.fromEntries(tlsKeys.flatMap((key) => (given[key] === undefined ? [] : [[key, given[key]]])))
  // client-node reads the cluster's TLS settings only for a context that names a user: the cluster's own
  // fields (public in its Cluster type) hold for one that does not.
  if (tls["rejectUnauthorized"] === undefined && cluster?.skipTLSVerify === true) tls["rejectUnauthorized"] = false
  if (tls["servername"] === undefined && typeof cluster?.tlsServerName === "string" && cluster.tlsServerName !== "") tls["servername"] = cluster.tlsServerName
  const agent = options.agent instanceof Object ? (options.agent as Agent) : undefined
  return { headers, tls, agent, proxied: typeof cluster?.proxyUrl === "string" && cluster.proxyUrl !== "" }
}

type Fields = Readonly<Record<string, unknown>> | null

// Every field client-node reads from a file, a plugin or a proxy; absent all of them (and added
// authenticators), its answer depends on the cluster and user objects alone.
const dynamicUserFields = ["authProvider", "exec", "certFile", "keyFile"] as const
const dynamicClusterFields = ["caFile", "proxyUrl"] as const

const hasAny = (fields: Fields, keys: ReadonlyArray<string>): boolean => fields !== null && keys.some((key) => fields[key] !== undefined && fields[key] !== null && fields[key] !== "")

const authenticatorsAdded = Symbol("authenticatorsAdded")

interface WatchedKubeConfig {
  readonly [authenticatorsAdded]: () => boolean
}

/**
 * Has `config` record whether an authenticator is ever added to it (client-node keeps its list private),
 * and returns it. Credentials are kept only for a KubeConfig watched from its creation: for any other, an
 * authenticator may have been added, and may apply to any user, so client-node is asked on every call.
 */
export const watchingAuthenticators = (config: KubeConfig): KubeConfig => {
  let added = false
  const add = config.addAuthenticator.bind(config)
  Object.defineProperty(config, "addAuthenticator", { value: (authenticator: Parameters<KubeConfig["addAuthenticator"]>[0]) => ((added = true), add(authenticator)) })
  Object.defineProperty(config, authenticatorsAdded, { value: () => added })
  return config
}

const mayHaveAuthenticators = (config: KubeConfig): boolean => (config as Partial<WatchedKubeConfig>)[authenticatorsAdded]?.() ?? true

// The current context's name and every field of its cluster and user, in order, as the kept answer was
// computed from them. The fields left once files, plugins and proxies are excluded are strings and
// booleans, so comparing values one by one sees any change (no serialization per call).
const snapshotOf = (context: string, cluster: Fields, user: Fields): ReadonlyArray<unknown> => {
  const values: Array<unknown> = [context]
  for (const fields of [cluster, user]) {
    values.push(fields === null ? -1 : Object.keys(fields).length)
    if (fields !== null) for (const key of Object.keys(fields)) values.push(key, fields[key])
  }
  return values
}

const sameFields = (snapshot: ReadonlyArray<unknown>, at: number, fields: Fields): number => {
  if (fields === null) return snapshot[at] === -1 ? at + 1 : -1
  const keys = Object.keys(fields)
  if (snapshot[at] !== keys.length) return -1
  let i = at + 1
  for (const key of keys) {
    if (snapshot[i] !== key || snapshot[i + 1] !== fields[key]) return -1
    i += 2
  }
  return i
}

const matches = (snapshot: ReadonlyArray<unknown>, context: string, cluster: Fields, user: Fields): boolean => {
  if (snapshot[0] !== context) return false
  const afterCluster = sameFields(snapshot, 1, cluster)
  return afterCluster !== -1 && sameFields(snapshot, afterCluster, user) === snapshot.length
}

/** The credentials for a KubeConfig's calls, kept while they are written in the kubeconfig and unchanged. */
export class KubeCredentials {
  private kept: { readonly snapshot: ReadonlyArray<unknown>; readonly authentication: Authentication } | undefined

  constructor(private readonly config: KubeConfig) {}

  /** The credentials for the next call: the kept ones at once, or client-node's answer. */
  current(): Authentication | Promise<Authentication> {
    const cluster = this.config.getCurrentCluster() as Fields
    const user = this.config.getCurrentUser() as Fields
    if (hasAny(user, dynamicUserFields) || hasAny(cluster, dynamicClusterFields) || mayHaveAuthenticators(this.config)) {
      this.kept = undefined
      return applied(this.config)
    }
    const context = this.config.getCurrentContext()
    if (this.kept !== undefined && matches(this.kept.snapshot, context, cluster, user)) return this.kept.authentication
    const snapshot = snapshotOf(context, cluster, user)
    return applied(this.config).then((authentication) => {
      this.kept = { snapshot, authentication }
      return authentication
    })
  }
}
