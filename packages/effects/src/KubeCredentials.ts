// client-node authenticates a request by building it a new http(s).Agent and its headers through a chain of
// promises, on every call. When every credential is written in the kubeconfig itself (a token, basic auth,
// inline certificates and CA, impersonation), that answer is the same each time: it is kept until the
// current context, cluster or user changes in any field. Credentials that live elsewhere are asked of
// client-node call by call, as before: token, certificate and CA files may be rotated, exec and auth-provider
// plugins' tokens expire, and authenticators added to the KubeConfig decide for themselves. A proxy's agent
// is not kept either: it is used as it is, for one request.
import type { KubeConfig, RequestContext } from "@kubernetes/client-node"
import type { Agent } from "node:http"

/** What client-node's applySecurityAuthentication writes into a request: its headers and the agent it chose. */
export interface Authentication {
  readonly headers: Readonly<Record<string, string>>
  readonly agent: Agent | undefined
}

// The two methods of RequestContext that applySecurityAuthentication calls (client-node 1.4.0, pinned).
const applied = async (config: KubeConfig): Promise<Authentication> => {
  const headers: Record<string, string> = {}
  let agent: Agent | undefined
  const context = {
    setHeaderParam: (key: string, value: string) => void (headers[key] = value),
    setAgent: (chosen: Agent) => void (agent = chosen)
  }
  await config.applySecurityAuthentication(context as unknown as RequestContext)
  return { headers, agent }
}

type Fields = Readonly<Record<string, unknown>> | null

// Every field client-node reads from a file, a plugin or an authenticator it was given; absent all of
// them, its answer depends on the cluster and user objects alone.
const dynamicUserFields = ["authProvider", "exec", "certFile", "keyFile"] as const
const dynamicClusterFields = ["caFile", "proxyUrl"] as const

const hasAny = (fields: Fields, keys: ReadonlyArray<string>): boolean => fields !== null && keys.some((key) => fields[key] !== undefined && fields[key] !== null && fields[key] !== "")

// custom_authenticators is client-node's (private) list of authenticators added with addAuthenticator: any
// of them may apply to any user. A version that names it otherwise is treated as having some.
const hasCustomAuthenticators = (config: KubeConfig): boolean => {
  const custom = (config as unknown as { readonly custom_authenticators?: unknown }).custom_authenticators
  return !Array.isArray(custom) || custom.length > 0
}

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
    if (hasAny(user, dynamicUserFields) || hasAny(cluster, dynamicClusterFields) || hasCustomAuthenticators(this.config)) {
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
