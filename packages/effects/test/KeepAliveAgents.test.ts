// The dispatcher pool behind KubeCluster's connection reuse: one dispatcher per connection identity, never
// a proxy agent swapped for a direct one.
import { Agent as HttpAgent } from "node:http"
import { Agent as HttpsAgent } from "node:https"
import { Agent as UndiciAgent } from "undici"
import { afterEach, describe, expect, it } from "vitest"
import { KeepAliveAgents } from "../src/KeepAliveAgents.ts"

const pools: Array<KeepAliveAgents> = []
const pool = (): KeepAliveAgents => {
  const agents = new KeepAliveAgents()
  pools.push(agents)
  return agents
}
afterEach(() => {
  for (const agents of pools.splice(0)) agents.destroy()
})

describe("KeepAliveAgents", () => {
  it("hands out one keep-alive dispatcher for the per-request agents of one kubeconfig", () => {
    const agents = pool()
    const tls = { ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key"), servername: "api" }
    const first = agents.share(new HttpsAgent({ ...tls }))
    // client-node reads the files again for each request: equal bytes in a new Buffer are the same identity.
    const second = agents.share(new HttpsAgent({ ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key"), servername: "api" }))
    expect(second).toBe(first)
    expect(first).toBeInstanceOf(UndiciAgent)
  })

  it("connects with the agent's TLS material and keeps idle connections open", () => {
    const agents = pool()
    const tls = { ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key"), servername: "api", rejectUnauthorized: false }
    const dispatcher = agents.share(new HttpsAgent(tls))
    // undici keeps its options under a symbol: read them by its description rather than a private import.
    const options = Object.getOwnPropertySymbols(dispatcher).map((symbol) => [symbol.description, (dispatcher as unknown as Record<symbol, unknown>)[symbol]] as const)
    const factoryOptions = options.find(([name]) => name === "options")?.[1] as
      | { readonly connect?: Record<string, unknown>; readonly keepAliveTimeout?: number; readonly headersTimeout?: number; readonly bodyTimeout?: number }
      | undefined
    expect(factoryOptions?.connect).toMatchObject(tls)
    expect(factoryOptions?.keepAliveTimeout).toBe(30_000)
    // undici's own 300 s limits are off: a call's timeout, up to 24 h, is the only bound on an answer.
    expect(factoryOptions?.headersTimeout).toBe(0)
    expect(factoryOptions?.bodyTimeout).toBe(0)
  })

  it("gives a rotated certificate, another CA check or another scheme its own agent", () => {
    const agents = pool()
    const base = agents.share(new HttpsAgent({ cert: Buffer.from("cert-1") }))
    expect(agents.share(new HttpsAgent({ cert: Buffer.from("cert-2") }))).not.toBe(base)
    expect(agents.share(new HttpsAgent({ cert: Buffer.from("cert-1"), rejectUnauthorized: false }))).not.toBe(base)
    const plain = agents.share(new HttpAgent({}))
    expect(plain).not.toBe(base)
    expect(plain).toBeInstanceOf(UndiciAgent)
    expect(agents.share(new HttpsAgent({ cert: Buffer.from("cert-1") }))).toBe(base)
  })

  it("stands in for no proxy agent (any other agent class) and no missing agent: those are used as they are", () => {
    class ProxyAgent extends HttpAgent {}
    const agents = pool()
    expect(agents.share(new ProxyAgent())).toBeUndefined()
    expect(agents.share(undefined)).toBeUndefined()
  })
})
