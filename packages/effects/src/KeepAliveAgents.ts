// client-node builds a new http(s).Agent for every request (KubeConfig.applyToHTTPSOptions), so
// each call would open a fresh TCP connection, and over https a fresh TLS handshake. This pool hands out one
// keep-alive undici dispatcher per distinct connection identity instead, so calls reuse connections while
// the kubeconfig's credentials and TLS material are still applied to every request as client-node decides.
// undici rather than node:http: per call it costs about half the CPU, and a client's CPU per call is what
// bounds how many calls one process makes per second.
import { Agent as UndiciAgent, type Dispatcher } from "undici"
import type { TlsOptions } from "./KubeCredentials.ts"

// What client-node's applyToHTTPSOptions sets from the kubeconfig: two requests that agree on all of these
// (and the scheme) may share connections. A rotated client certificate or CA changes them, and gets its own
// dispatcher.
const identityKeys = ["ca", "cert", "key", "pfx", "passphrase", "rejectUnauthorized", "servername"] as const

const sameValue = (a: unknown, b: unknown): boolean => a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b))

const sameIdentity = (a: TlsOptions, b: TlsOptions): boolean => identityKeys.every((key) => sameValue(a[key], b[key]))

const identityOf = (options: TlsOptions): TlsOptions =>
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
  readonly protocol: string
  readonly identity: TlsOptions
  readonly dispatcher: UndiciAgent
}

/** One keep-alive undici dispatcher per scheme and TLS identity, standing in for client-node's per-request agents. */
export class KeepAliveAgents {
  private pool: Array<Pooled> = []

  /** The pooled dispatcher for requests over `protocol` (`https:`, `http:`) made with the TLS options `tls`. */
  share(protocol: string, tls: TlsOptions): Dispatcher {
    const found = this.pool.find((entry) => entry.protocol === protocol && sameIdentity(entry.identity, tls))
    if (found !== undefined) return found.dispatcher
    const identity = identityOf(tls)
    // undici takes the TLS options for its connections under `connect`; keepAliveMaxTimeout caps what a
    // server's Keep-Alive hint may stretch the idle time to. Its own header and body timeouts (300 s) are
    // off: each call's timeout (up to 24 h) bounds the wait, and fails as unanswered.
    const dispatcher = new UndiciAgent({ connect: { ...identity }, keepAliveTimeout: idleConnectionMs, keepAliveMaxTimeout: idleConnectionMs, headersTimeout: 0, bodyTimeout: 0 })
    this.pool = [...this.pool.slice(-(maxAgents - 1)), { protocol, identity, dispatcher }]
    return dispatcher
  }

  /** Closes every pooled connection. */
  destroy(): void {
    for (const entry of this.pool) void entry.dispatcher.destroy()
    this.pool = []
  }
}
