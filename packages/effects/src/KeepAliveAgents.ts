// client-node builds a new http(s).Agent for every request (KubeConfig.applySecurityAuthentication), so
// each call would open a fresh TCP connection, and over https a fresh TLS handshake. This pool hands out one
// keep-alive undici dispatcher per distinct connection identity instead, so calls reuse connections while
// the kubeconfig's credentials and TLS material are still applied to every request as client-node decides.
// undici rather than node:http: per call it costs about half the CPU, and a client's CPU per call is what
// bounds how many calls one process makes per second.
import { Agent as HttpAgent } from "node:http"
import { Agent as HttpsAgent } from "node:https"
import { Agent as UndiciAgent, type Dispatcher } from "undici"

// What KubeConfig.createAgent sets from the kubeconfig: two agents that agree on all of these open
// interchangeable connections. A rotated client certificate or CA changes them, and gets its own dispatcher.
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

// Past this many identities (credential rotations) the oldest dispatcher is dropped: its idle connections
// close on their own timeout, and in-flight requests on it finish undisturbed.
const maxAgents = 8

interface Pooled {
  readonly kind: typeof HttpAgent | typeof HttpsAgent
  readonly identity: AgentOptions
  readonly dispatcher: UndiciAgent
}

/** One keep-alive undici dispatcher per connection identity, standing in for client-node's per-request agents. */
export class KeepAliveAgents {
  private pool: Array<Pooled> = []

  /** The pooled dispatcher to send through instead of `agent`; none for a proxy agent (any other agent
   * class) or no agent, which are used as they are. */
  share(agent: HttpAgent | undefined): Dispatcher | undefined {
    const kind = agent?.constructor === HttpsAgent ? HttpsAgent : agent?.constructor === HttpAgent ? HttpAgent : undefined
    if (agent === undefined || kind === undefined) return undefined
    const options = (agent as HttpAgent & { readonly options: AgentOptions }).options
    const found = this.pool.find((entry) => entry.kind === kind && sameIdentity(entry.identity, options))
    if (found !== undefined) return found.dispatcher
    const identity = identityOf(options)
    // undici takes the TLS options for its connections under `connect`; keepAliveMaxTimeout caps what a
    // server's Keep-Alive hint may stretch the idle time to. Its own header and body timeouts (300 s) are
    // off: each call's timeout (up to 24 h) bounds the wait, and fails as unanswered.
    const dispatcher = new UndiciAgent({ connect: { ...identity }, keepAliveTimeout: idleConnectionMs, keepAliveMaxTimeout: idleConnectionMs, headersTimeout: 0, bodyTimeout: 0 })
    this.pool = [...this.pool.slice(-(maxAgents - 1)), { kind, identity, dispatcher }]
    return dispatcher
  }

  /** Closes every pooled connection. */
  destroy(): void {
    for (const entry of this.pool) void entry.dispatcher.destroy()
    this.pool = []
  }
}
