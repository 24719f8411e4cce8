// The dispatcher pool behind KubeCluster's connection reuse: one dispatcher per scheme and TLS identity.
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
    const first = agents.share("https:", { ...tls })
    // client-node reads the files again for each request: equal bytes in a new Buffer are the same identity.
    const second = agents.share("https:", { ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key"), servername: "api" })
    expect(second).toBe(first)
    expect(first).toBeInstanceOf(UndiciAgent)
  })

  it("connects with the agent's TLS material and keeps idle connections open", () => {
    const agents = pool()
    const tls = { ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key"), servername: "api", rejectUnauthorized: false }
    const dispatcher = agents.share("https:", tls)
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

  it("gives a rotated certificate, another CA check or another scheme its own dispatcher", () => {
    const agents = pool()
    const base = agents.share("https:", { cert: Buffer.from("cert-1") })
    expect(agents.share("https:", { cert: Buffer.from("cert-2") })).not.toBe(base)
    expect(agents.share("https:", { cert: Buffer.from("cert-1"), rejectUnauthorized: false })).not.toBe(base)
    const plain = agents.share("http:", { cert: Buffer.from("cert-1") })
    expect(plain).not.toBe(base)
    expect(plain).toBeInstanceOf(UndiciAgent)
    expect(agents.share("https:", { cert: Buffer.from("cert-1") })).toBe(base)
    // Options that are not the connection's identity (a timeout, say) do not split the pool.
    expect(agents.share("https:", { cert: Buffer.from("cert-1"), timeout: 5 })).toBe(base)
  })
})
