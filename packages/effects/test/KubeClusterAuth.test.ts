// KubeCluster builds its requests itself, but every credential still comes from client-node's KubeConfig,
// call by call: a bearer token, an exec plugin's token, basic auth and impersonation, as headers on the
// request; and the server URL's path is kept in front of every API path.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { KubeConfig } from "@kubernetes/client-node"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeKubeCluster } from "../src/KubeCluster.ts"
import { TrainJobs } from "../src/ResourceKind.ts"

interface Seen {
  readonly url: string
  readonly headers: IncomingHttpHeaders
}

const seen: Array<Seen> = []
let server: Server
let origin = ""

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push({ url: req.url ?? "", headers: req.headers })
    req.resume()
    req.on("end", () => {
      res.writeHead(200, { "content-type": "application/json" })
      res.end(JSON.stringify({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: "a", namespace: "default" } }))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const configWith = (user: Record<string, unknown>, serverUrl = origin): KubeConfig => {
  const config = new KubeConfig()
  config.loadFromOptions({
    clusters: [{ name: "c", server: serverUrl, skipTLSVerify: true }],
    users: [{ name: "u", ...user }],
    contexts: [{ name: "x", cluster: "c", user: "u" }],
    currentContext: "x"
  })
  return config
}

const getOnce = async (config: KubeConfig): Promise<Seen> => {
  const before = seen.length
  await Effect.runPromise(makeKubeCluster(config, 30_000).get(TrainJobs, { namespace: "default", name: "a" }))
  expect(seen.length).toBe(before + 1)
  return seen[before] as Seen
}

describe("KubeCluster's requests carry the KubeConfig's credentials", () => {
  it("sends the user's bearer token", async () => {
    expect((await getOnce(configWith({ token: "tok-1" }))).headers.authorization).toBe("Bearer tok-1")
  })

  it("sends a changed token on the next call of the same cluster, the kept credentials notwithstanding", async () => {
    const config = configWith({ token: "tok-1" })
    const cluster = makeKubeCluster(config, 30_000)
    const before = seen.length
    await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "a" }))
    await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "a" }))
    ;(config.getCurrentUser() as { token: string }).token = "tok-2"
    await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "a" }))
    expect(seen.slice(before).map((request) => request.headers.authorization)).toEqual(["Bearer tok-1", "Bearer tok-1", "Bearer tok-2"])
  })

  it("sends the token an exec plugin prints, running the plugin as client-node does", async () => {
    const credential = JSON.stringify({ apiVersion: "client.authentication.k8s.io/v1", kind: "ExecCredential", status: { token: "from-exec" } })
    const exec = { apiVersion: "client.authentication.k8s.io/v1", command: process.execPath, args: ["-e", `process.stdout.write(${JSON.stringify(credential)})`], interactiveMode: "Never" }
    expect((await getOnce(configWith({ exec }))).headers.authorization).toBe("Bearer from-exec")
  })

  it("sends basic auth and the impersonated user", async () => {
    const headers = (await getOnce(configWith({ username: "ann", password: "pw", impersonateUser: "bob" }))).headers
    expect(headers.authorization).toBe(`Basic ${Buffer.from("ann:pw").toString("base64")}`)
    expect(headers["impersonate-user"]).toBe("bob")
  })

  it("keeps the server URL's path in front of the API path, and encodes a list's selector as client-node did", async () => {
    const got = await getOnce(configWith({ token: "t" }, `${origin}/clusters/c-1`))
    expect(got.url).toBe("/clusters/c-1/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/a")
    const before = seen.length
    await Effect.runPromise(Effect.exit(makeKubeCluster(configWith({ token: "t" }), 30_000).list(TrainJobs, "default", "a=b,c in (d)")))
    expect(seen[before]?.url).toBe("/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs?labelSelector=a%3Db%2Cc+in+%28d%29")
  })
})
