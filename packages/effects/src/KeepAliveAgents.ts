// client-node builds a new http(s).Agent for every request (KubeConfig.applySecurityAuthentication), so
// each call opens a fresh TCP connection, and over https a fresh TLS handshake. This pool hands out one
// keep-alive agent per distinct connection identity instead, so calls reuse connections while the
// kubeconfig's credentials and TLS material are still applied to every request as client-node decides.
import { Agent as HttpAgent } from "node:http"
import { Agent as HttpsAgent } from "node:https"

// What KubeConfig.createAgent sets from the kubeconfig: two agents that agree on all of these open
// interchangeable connections. A rotated client certificate or CA changes them, and gets its own agent.
const identityKeys = ["ca", "cert", "key", "pfx", "passphrase", "rejectUnauthorized", "servername"] as const

type AgentOptions = Readonly<Record<string, unknown>>

const sameValue = (a: unknown, b: unknown): boolean => a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b))

const sameIdentity = (a: AgentOptions, b: AgentOptions): boolean => identityKeys.every((key) => sameValue(a[key], b[key]))

const identityOf = (options: AgentOptions): AgentOptions =>
  Object.fromEntries(identityKeys.flatMap((key) => (options[key] === undefined ? [] : [[key, options[key]]])))

/**
 * Idle pooled connections are closed after this long unless the server announces a shorter keep-alive
 * (then just before it), so a request is not written onto a connection the server is closing.
 */
export const idleConnectionMs = 30_000

// Past this many identities (credential rotations) the oldest agent is dropped: its idle connections
// close on their own timeout, and in-flight requests on it finish undisturbed.
const maxAgents = 8

interface Pooled {
  readonly kind: typeof HttpAgent | typeof HttpsAgent
  readonly identity: AgentOptions
  readonly agent: HttpAgent
}

/** One keep-alive agent per connection identity, standing in for client-node's per-request agents. */
export class KeepAliveAgents {
  private pool: Array<Pooled> = []

  /** The pooled agent to use instead of `agent`; a proxy agent (or none) is returned unchanged. */
  share(agent: HttpAgent | undefined): HttpAgent | undefined {
    const kind = agent?.constructor === HttpsAgent ? HttpsAgent : agent?.constructor === HttpAgent ? HttpAgent : undefined
    if (agent === undefined || kind === undefined) return agent
    const options = (agent as HttpAgent & { readonly options: AgentOptions }).options
    const found = this.pool.find((entry) => entry.kind === kind && sameIdentity(entry.identity, options))
    if (found !== undefined) return found.agent
    const identity = identityOf(options)
    const pooled: Pooled = { kind, identity, agent: new kind({ ...identity, keepAlive: true, timeout: idleConnectionMs }) }
    this.pool = [...this.pool.slice(-(maxAgents - 1)), pooled]
    return pooled.agent
  }

  /** Closes every pooled connection. */
  destroy(): void {
    for (const entry of this.pool) entry.agent.destroy()
    this.pool = []
  }
}
