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

  it("tells bytes from text: a CA given as a Buffer and one given as a string are two identities", () => {
    const agents = pool()
    const bytes = agents.share("https:", { ca: Buffer.from("ca") })
    expect(agents.share("https:", { ca: "ca" })).not.toBe(bytes)
  })

  it("keeps only the options that are set: an absent one is not passed on as undefined", () => {
    const agents = pool()
    const dispatcher = agents.share("https:", { ca: Buffer.from("ca"), cert: undefined, servername: "api" })
    const options = Object.getOwnPropertySymbols(dispatcher).map((symbol) => [symbol.description, (dispatcher as unknown as Record<symbol, unknown>)[symbol]] as const)
    const connect = (options.find(([name]) => name === "options")?.[1] as { readonly connect?: Record<string, unknown> } | undefined)?.connect
    expect(Object.keys(connect ?? {}).sort()).toEqual(["ca", "servername"])
  })

  it("holds at most eight identities, dropping the oldest, and closes every one on destroy", async () => {
    const agents = pool()
    const first = agents.share("https:", { cert: Buffer.from("cert-0") })
    const rest = Array.from({ length: 7 }, (_, i) => agents.share("https:", { cert: Buffer.from(`cert-${i + 1}`) }))
    // Eight identities: the first is still pooled.
    expect(agents.share("https:", { cert: Buffer.from("cert-0") })).toBe(first)
    agents.share("https:", { cert: Buffer.from("cert-8") })
    // A ninth: the oldest (the first) is dropped, and asking for it again makes a new dispatcher.
    expect(agents.share("https:", { cert: Buffer.from("cert-0") })).not.toBe(first)
    // Asking for it pushed out the next oldest, cert-1: a dropped dispatcher is left to close its idle
    // connections on their own; the pooled ones are destroyed with the pool.
    agents.destroy()
    await new Promise((resolve) => setImmediate(resolve))
    expect((rest[0] as UndiciAgent).destroyed).toBe(false)
    for (const dispatcher of rest.slice(1)) expect((dispatcher as UndiciAgent).destroyed).toBe(true)
    expect(agents.share("https:", { cert: Buffer.from("cert-7") })).not.toBe(rest[6])
  })
})
