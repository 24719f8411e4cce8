// The agent pool behind KubeCluster's connection reuse: one agent per connection identity, never a
// proxy agent swapped for a direct one.
import { Agent as HttpAgent } from "node:http"
import { Agent as HttpsAgent } from "node:https"
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
  it("hands out one keep-alive agent for the per-request agents of one kubeconfig", () => {
    const agents = pool()
    const tls = { ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key"), servername: "api" }
    const first = agents.share(new HttpsAgent({ ...tls }))
    // client-node reads the files again for each request: equal bytes in a new Buffer are the same identity.
    const second = agents.share(new HttpsAgent({ ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key"), servername: "api" }))
    expect(second).toBe(first)
    expect(first).toBeInstanceOf(HttpsAgent)
    expect((first as HttpAgent & { keepAlive: boolean }).keepAlive).toBe(true)
    expect((first as HttpAgent & { options: Record<string, unknown> }).options["servername"]).toBe("api")
  })

  it("gives a rotated certificate, another CA check or another scheme its own agent", () => {
    const agents = pool()
    const base = agents.share(new HttpsAgent({ cert: Buffer.from("cert-1") }))
    expect(agents.share(new HttpsAgent({ cert: Buffer.from("cert-2") }))).not.toBe(base)
    expect(agents.share(new HttpsAgent({ cert: Buffer.from("cert-1"), rejectUnauthorized: false }))).not.toBe(base)
    const plain = agents.share(new HttpAgent({}))
    expect(plain).not.toBe(base)
    expect(plain).toBeInstanceOf(HttpAgent)
    expect(plain).not.toBeInstanceOf(HttpsAgent)
    expect(agents.share(new HttpsAgent({ cert: Buffer.from("cert-1") }))).toBe(base)
  })

  it("leaves a proxy agent (any other agent class) and a missing agent as they are", () => {
    class ProxyAgent extends HttpAgent {}
    const proxy = new ProxyAgent()
    const agents = pool()
    expect(agents.share(proxy)).toBe(proxy)
    expect(agents.share(undefined)).toBeUndefined()
  })
})
