// Credentials written in the kubeconfig are asked of client-node once and kept; any change to the current
// context, cluster or user is seen on the next call; credentials from files, plugins or added
// authenticators (or a KubeConfig not watched for them) are asked for on every call. Only client-node's
// public applyToHTTPSOptions is asked.
import { KubeConfig } from "@kubernetes/client-node"
import { describe, expect, it, vi } from "vitest"
import { KubeCredentials, watchingAuthenticators } from "../src/KubeCredentials.ts"

const configWith = (users: ReadonlyArray<Record<string, unknown>>, cluster: Record<string, unknown> = {}): KubeConfig => {
  const config = watchingAuthenticators(new KubeConfig())
  config.loadFromOptions({
    clusters: [{ name: "c", server: "https://127.0.0.1:6443", skipTLSVerify: false, ...cluster }],
    users: users.map((user, i) => ({ name: `u${i}`, ...user })),
    contexts: users.map((_, i) => ({ name: `x${i}`, cluster: "c", user: `u${i}` })),
    currentContext: "x0"
  })
  return config
}

// What the next call is sent with, and whether client-node was asked for it.
const next = async (config: KubeConfig, credentials: KubeCredentials) => {
  const asked = vi.spyOn(config, "applyToHTTPSOptions")
  try {
    const authentication = await credentials.current()
    return { authorization: authentication.headers["Authorization"], agent: authentication.agent, tls: authentication.tls, asked: asked.mock.calls.length }
  } finally {
    asked.mockRestore()
  }
}

describe("KubeCredentials", () => {
  it("asks client-node once for a token written in the kubeconfig, and keeps its answer and agent", async () => {
    const config = configWith([{ token: "tok-1" }])
    const credentials = new KubeCredentials(config)
    const first = await next(config, credentials)
    const second = await next(config, credentials)
    expect(first).toMatchObject({ authorization: "Bearer tok-1", asked: 1 })
    expect(second).toMatchObject({ authorization: "Bearer tok-1", asked: 0 })
    expect(second.agent).toBe(first.agent)
  })

  it("asks again once the user's token, the current context or the cluster changes", async () => {
    const config = configWith([{ token: "tok-1" }, { token: "tok-2" }])
    const credentials = new KubeCredentials(config)
    await next(config, credentials)
    config.setCurrentContext("x1")
    expect(await next(config, credentials)).toMatchObject({ authorization: "Bearer tok-2", asked: 1 })
    // The same context, its user's token replaced in place.
    ;(config.getCurrentUser() as { token: string }).token = "tok-3"
    expect(await next(config, credentials)).toMatchObject({ authorization: "Bearer tok-3", asked: 1 })
    // A field added to the user in place (impersonation), then removed.
    ;(config.getCurrentUser() as { impersonateUser?: string }).impersonateUser = "bob"
    const impersonating = await credentials.current()
    expect(impersonating.headers["Impersonate-User"]).toBe("bob")
    delete (config.getCurrentUser() as { impersonateUser?: string }).impersonateUser
    expect((await credentials.current()).headers["Impersonate-User"]).toBeUndefined()
    // The cluster's TLS settings change the agent, not the headers.
    const before = (await next(config, credentials)).agent
    ;(config.getCurrentCluster() as { skipTLSVerify: boolean }).skipTLSVerify = true
    const after = await next(config, credentials)
    expect(after.asked).toBe(1)
    expect(after.agent).not.toBe(before)
    expect(after.tls).toMatchObject({ rejectUnauthorized: false })
  })

  it.each([
    ["an exec plugin", { exec: { apiVersion: "client.authentication.k8s.io/v1", command: process.execPath, args: ["-e", `process.stdout.write(${JSON.stringify(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "from-exec" } }))})`], interactiveMode: "Never" } }, {}],
    ["a token file", { authProvider: { name: "tokenFile", config: { tokenFile: "/nonexistent/token" } } }, {}],
    ["a client certificate file", { certFile: "/nonexistent/cert", keyFile: "/nonexistent/key" }, {}],
    ["a CA file", { token: "t" }, { caFile: "/nonexistent/ca" }],
    ["a proxy", { token: "t" }, { proxyUrl: "http://127.0.0.1:3128" }]
  ])("asks client-node on every call for credentials from %s", async (_, user, cluster) => {
    const config = configWith([user], cluster)
    const credentials = new KubeCredentials(config)
    for (let i = 0; i < 2; i++) {
      const asked = vi.spyOn(config, "applyToHTTPSOptions").mockResolvedValue(undefined)
      await credentials.current()
      expect(asked.mock.calls.length).toBe(1)
      asked.mockRestore()
    }
  })

  it("sends basic auth as an Authorization header, inline TLS material as the connection's, and a proxy's agent as it is", async () => {
    const basic = await new KubeCredentials(configWith([{ username: "ann", password: "pw" }], { tlsServerName: "api.internal" })).current()
    expect(basic.headers["Authorization"]).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`)
    expect(basic.tls).toMatchObject({ servername: "api.internal" })
    expect(basic.proxied).toBe(false)
    const certified = await new KubeCredentials(configWith([{ certData: Buffer.from("cert").toString("base64"), keyData: Buffer.from("key").toString("base64") }], { caData: Buffer.from("ca").toString("base64") })).current()
    expect(certified.tls).toMatchObject({ ca: Buffer.from("ca"), cert: Buffer.from("cert"), key: Buffer.from("key") })
    const proxied = await new KubeCredentials(configWith([{ token: "t" }], { proxyUrl: "http://127.0.0.1:3128" })).current()
    expect(proxied).toMatchObject({ proxied: true, headers: { Authorization: "Bearer t" } })
    expect(proxied.agent?.constructor.name).toBe("HttpsProxyAgent")
  })

  it("passes on only what client-node set: no TLS option for a token over a verified cluster, and a proxy-url left empty is no proxy", async () => {
    const plain = await new KubeCredentials(configWith([{ token: "t" }])).current()
    expect(Object.keys(plain.tls)).toEqual([])
    expect(plain.proxied).toBe(false)
    expect((await new KubeCredentials(configWith([{ token: "t" }], { proxyUrl: "" })).current()).proxied).toBe(false)
  })

  it("a user's token wins over its basic auth, as client-node's own requests have it", async () => {
    expect((await new KubeCredentials(configWith([{ username: "ann", password: "pw", token: "tok" }])).current()).headers["Authorization"]).toBe("Bearer tok")
  })

  it("applies the cluster's insecure-skip-tls-verify and tls-server-name for a context with no user, and keeps that answer", async () => {
    const config = watchingAuthenticators(new KubeConfig())
    config.loadFromOptions({
      clusters: [{ name: "c", server: "https://127.0.0.1:6443", skipTLSVerify: true, tlsServerName: "api.internal" }],
      users: [],
      contexts: [{ name: "x", cluster: "c", user: "nobody" }],
      currentContext: "x"
    })
    const credentials = new KubeCredentials(config)
    const first = await next(config, credentials)
    expect(first.tls).toEqual({ rejectUnauthorized: false, servername: "api.internal" })
    expect(first.authorization).toBeUndefined()
    expect((await next(config, credentials)).asked).toBe(0)
    // The same cluster without them: neither is set.
    ;(config.getCurrentCluster() as { skipTLSVerify: boolean }).skipTLSVerify = false
    ;(config.getCurrentCluster() as { tlsServerName: string }).tlsServerName = ""
    const after = await next(config, credentials)
    expect(after).toMatchObject({ asked: 1 })
    expect(Object.keys(after.tls)).toEqual([])
  })

  it("sends every header an authenticator sets, a repeated one joined as HTTP joins it, and none it leaves unset", async () => {
    const config = watchingAuthenticators(new KubeConfig())
    config.loadFromOptions({ clusters: [{ name: "c", server: "https://127.0.0.1:6443" }], users: [{ name: "u" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" })
    config.addAuthenticator({
      isAuthProvider: () => true,
      applyAuthentication: async (_user: unknown, options: { headers: Record<string, unknown> }) => {
        options.headers["Impersonate-Group"] = ["a", "b"]
        options.headers["X-Unset"] = undefined
        options.headers["Authorization"] = "Bearer from-authenticator"
      }
    } as never)
    const headers = (await new KubeCredentials(config).current()).headers
    expect(headers).toEqual({ "Impersonate-Group": "a, b", Authorization: "Bearer from-authenticator" })
  })

  it("a token and an exec plugin's token reach the headers", async () => {
    const exec = { apiVersion: "client.authentication.k8s.io/v1", command: process.execPath, args: ["-e", `process.stdout.write(${JSON.stringify(JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "from-exec" } }))})`], interactiveMode: "Never" }
    expect((await new KubeCredentials(configWith([{ exec }])).current()).headers["Authorization"]).toBe("Bearer from-exec")
  })

  it("asks client-node on every call for a KubeConfig not watched from its creation: an authenticator may have been added to it", async () => {
    const config = new KubeConfig()
    config.loadFromOptions({ clusters: [{ name: "c", server: "https://127.0.0.1:6443" }], users: [{ name: "u", token: "t" }], contexts: [{ name: "x", cluster: "c", user: "u" }], currentContext: "x" })
    const credentials = new KubeCredentials(config)
    await next(config, credentials)
    expect(await next(config, credentials)).toMatchObject({ authorization: "Bearer t", asked: 1 })
  })

  it("asks client-node on every call once an authenticator has been added to the KubeConfig", async () => {
    const config = configWith([{ token: "t" }])
    config.addAuthenticator({ isAuthProvider: () => false, applyAuthentication: async () => undefined } as never)
    const credentials = new KubeCredentials(config)
    await next(config, credentials)
    expect((await next(config, credentials)).asked).toBe(1)
  })
})
