// KubeCluster over TLS, as the kubeconfig says: the cluster's CA, its tls-server-name and the user's client
// certificate all reach the pooled connections (client-node hands them over through its public
// applyToHTTPSOptions), calls share one TLS connection, and a connection the kubeconfig's TLS settings
// would refuse is refused. The certificates are made for the test by openssl.
import { execFileSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:https"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TLSSocket } from "node:tls"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadKubeConfig, makeKubeCluster } from "../src/KubeCluster.ts"
import { TrainJobs } from "../src/ResourceKind.ts"

const dir = mkdtempSync(join(tmpdir(), "dispatch-kube-tls-"))
const file = (name: string): string => join(dir, name)
const openssl = (...args: ReadonlyArray<string>): void => void execFileSync("openssl", args, { cwd: dir, stdio: "pipe" })
const ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]

// A CA, a server certificate it signed for the name api.internal only (not for 127.0.0.1), a client
// certificate it signed for alice, and another CA that signed nothing here.
const makeCertificates = (): void => {
  for (const ca of ["ca", "other-ca"]) openssl("req", "-x509", ...ec, "-keyout", `${ca}.key`, "-out", `${ca}.crt`, "-days", "2", "-subj", `/CN=${ca}`)
  writeFileSync(file("server.ext"), "subjectAltName=DNS:api.internal\n")
  openssl("req", ...ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=api.internal")
  openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "2", "-extfile", "server.ext")
  openssl("req", ...ec, "-keyout", "alice.key", "-out", "alice.csr", "-subj", "/CN=alice")
  openssl("x509", "-req", "-in", "alice.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "alice.crt", "-days", "2")
}

const base64 = (name: string): string => readFileSync(file(name)).toString("base64")

let server: Server
let url = ""
let handshakes = 0
const clients: Array<string> = []

// A kubeconfig for the test server, as a file (loaded as dispatch loads one).
const kubeconfig = (name: string, cluster: Record<string, unknown>): string => {
  const path = file(`${name}.kubeconfig`)
  const config = {
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "c", cluster: { server: url, ...cluster } }],
    users: [{ name: "u", user: { "client-certificate-data": base64("alice.crt"), "client-key-data": base64("alice.key") } }],
    contexts: [{ name: "x", context: { cluster: "c", user: "u" } }],
    "current-context": "x"
  }
  writeFileSync(path, JSON.stringify(config))
  return path
}

const clusterOf = (path: string) => Effect.runPromise(Effect.map(loadKubeConfig(path), (config) => makeKubeCluster(config, 10_000)))

beforeAll(async () => {
  makeCertificates()
  // The server asks for a client certificate and accepts only one its CA signed.
  server = createServer({ key: readFileSync(file("server.key")), cert: readFileSync(file("server.crt")), ca: readFileSync(file("ca.crt")), requestCert: true, rejectUnauthorized: true }, (req, res) => {
    clients.push(String((req.socket as TLSSocket).getPeerCertificate().subject?.CN ?? ""))
    res.writeHead(200, { "content-type": "application/json" })
    res.end(JSON.stringify({ apiVersion: "trainer.kubeflow.org/v1alpha1", kind: "TrainJob", metadata: { name: (req.url ?? "").split("/").pop(), namespace: "default" } }))
  })
  server.on("secureConnection", () => void handshakes++)
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`
})

afterAll(async () => {
  server.closeAllConnections()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  rmSync(dir, { recursive: true, force: true })
})

describe("KubeCluster over TLS", () => {
  it("verifies the server with the kubeconfig's CA and tls-server-name, presents the user's certificate, and keeps one connection", async () => {
    const cluster = await clusterOf(kubeconfig("good", { "certificate-authority-data": base64("ca.crt"), "tls-server-name": "api.internal" }))
    const before = handshakes
    for (const name of ["t1", "t2", "t3"]) {
      const read = await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name }))
      expect(read.metadata.name).toBe(name)
    }
    expect(clients.slice(-3)).toEqual(["alice", "alice", "alice"])
    expect(handshakes - before).toBe(1)
  })

  it("refuses a server its CA did not sign, and one whose certificate does not name the server it asked for", async () => {
    const otherCa = await clusterOf(kubeconfig("other-ca", { "certificate-authority-data": base64("other-ca.crt"), "tls-server-name": "api.internal" }))
    const wrongName = await clusterOf(kubeconfig("no-name", { "certificate-authority-data": base64("ca.crt") }))
    for (const cluster of [otherCa, wrongName]) {
      const error = await Effect.runPromise(Effect.flip(cluster.get(TrainJobs, { namespace: "default", name: "t" })))
      expect(error.reason).toBe("Unreachable")
    }
  })

  it("connects without checking the server when the kubeconfig says insecure-skip-tls-verify", async () => {
    const cluster = await clusterOf(kubeconfig("insecure", { "insecure-skip-tls-verify": true }))
    expect((await Effect.runPromise(cluster.get(TrainJobs, { namespace: "default", name: "t4" }))).metadata.name).toBe("t4")
  })
})
