// `dispatch serve` in a pod: with KUBERNETES_SERVICE_HOST and _PORT set and a ServiceAccount's token, CA
// certificate and namespace mounted, it dispatches as that ServiceAccount with no flag, as client-node's
// in-cluster loader reads them. The pod is stood in for by DISPATCH_SERVICE_ACCOUNT_ROOT (the root the mounted
// files are read under), and the API server by a simulator with RBAC on behind TLS: client-node's in-cluster
// config speaks https (checked with the mounted ca.crt) to every port but 80, 8080 and 8001, and the simulator
// serves plain http, so a TLS terminator of the test's own, with a certificate the test makes, stands in front.
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { type AddressInfo, connect } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type Server, createServer } from "node:tls"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseAllDocuments } from "yaml"
import { type KubeObject, type SimServer, Simulator, startSimServer } from "@dispatch/sim"
import { Effect } from "effect"
import { loadInClusterKubeConfig, runsInPod, serviceAccountDir } from "../../packages/effects/src/KubeCluster.ts"
import { parseServeArgs } from "../../packages/cli/src/ServeArgs.ts"
import { lineOf } from "../../packages/cli/test/CommandLine.ts"
import { type Served, background, dispatch, ensureBuilt, example, processTestMs } from "../../packages/cli/test/DispatchBinary.ts"
import { allJobs, exampleExperiment, serviceAt } from "../../packages/cli/test/ServiceCalls.ts"
import { hashToken } from "../../packages/server/src/http/Auth.ts"

const namespace = "ml-team"
const account = "dispatch"
const user = `system:serviceaccount:${namespace}:${account}`

describe("runsInPod", () => {
  const root = mkdtempSync(join(tmpdir(), "dispatch-pod-"))
  afterAll(() => rmSync(root, { recursive: true, force: true }))
  it("needs the API server's host and port, and the ServiceAccount's token under the root", () => {
    const pod = { KUBERNETES_SERVICE_HOST: "10.0.0.1", KUBERNETES_SERVICE_PORT: "443" }
    expect(runsInPod(pod, root)).toBe(false)
    // The directory alone, with no token in it, is not a ServiceAccount.
    mkdirSync(join(root, serviceAccountDir), { recursive: true })
    expect(runsInPod(pod, root)).toBe(false)
    writeFileSync(join(root, serviceAccountDir, "token"), "t")
    expect(runsInPod(pod, root)).toBe(true)
    expect(runsInPod({ ...pod, KUBERNETES_SERVICE_HOST: "" }, root)).toBe(false)
    expect(runsInPod({ KUBERNETES_SERVICE_HOST: "10.0.0.1" }, root)).toBe(false)
    expect(runsInPod({ KUBERNETES_SERVICE_PORT: "443" }, root)).toBe(false)
    expect(runsInPod(pod, join(root, "elsewhere"))).toBe(false)
  })
})

describe("loadInClusterKubeConfig", () => {
  const root = mkdtempSync(join(tmpdir(), "dispatch-pod-"))
  const saved = { host: process.env["KUBERNETES_SERVICE_HOST"], port: process.env["KUBERNETES_SERVICE_PORT"] }
  const restore = (name: string, value: string | undefined) => (value === undefined ? delete process.env[name] : (process.env[name] = value))
  afterAll(() => {
    restore("KUBERNETES_SERVICE_HOST", saved.host)
    restore("KUBERNETES_SERVICE_PORT", saved.port)
    rmSync(root, { recursive: true, force: true })
  })
  it("reads the API server from the environment and the ServiceAccount's files under the root, as client-node's in-cluster loader does", async () => {
    process.env["KUBERNETES_SERVICE_HOST"] = "10.96.0.1"
    process.env["KUBERNETES_SERVICE_PORT"] = "443"
    mkdirSync(join(root, serviceAccountDir), { recursive: true })
    writeFileSync(join(root, serviceAccountDir, "namespace"), "ml-team")
    for (const given of [root, `${root}/`, `${root}//`]) {
      const config = await Effect.runPromise(loadInClusterKubeConfig(given))
      expect(config.getCurrentCluster()).toMatchObject({ server: "https://10.96.0.1:443", caFile: join(root, serviceAccountDir, "ca.crt") })
      expect(config.getCurrentUser()?.authProvider).toEqual({ name: "tokenFile", config: { tokenFile: join(root, serviceAccountDir, "token") } })
      expect(config.getContextObject(config.getCurrentContext())?.namespace).toBe("ml-team")
    }
    // In a pod the root is /: the files are the mounted ones, with no doubled slash.
    const inPod = await Effect.runPromise(loadInClusterKubeConfig("/"))
    expect(inPod.getCurrentCluster()?.caFile).toBe(`${serviceAccountDir}/ca.crt`)
  })
  it("fails as a ClusterError naming the root and why, when a mounted file cannot be read", async () => {
    process.env["KUBERNETES_SERVICE_HOST"] = "10.96.0.1"
    process.env["KUBERNETES_SERVICE_PORT"] = "443"
    const broken = join(root, "broken")
    mkdirSync(join(broken, serviceAccountDir, "namespace"), { recursive: true })
    const failed = await Effect.runPromise(Effect.flip(loadInClusterKubeConfig(broken)))
    expect(failed).toMatchObject({ _tag: "ClusterError", reason: "Unreachable", call: `load the in-cluster config under ${broken}` })
    expect(failed.detail).toContain("EISDIR")
  })
  it("is the root dispatch serve reads from DISPATCH_SERVICE_ACCOUNT_ROOT, / when unset or empty", async () => {
    const line = await lineOf(["serve"])
    const rootOf = (env: Record<string, string>) => {
      const parsed = parseServeArgs(line.list, env)
      return "args" in parsed ? parsed.args.serviceAccountRoot : parsed.problems
    }
    expect(rootOf({})).toBe("/")
    expect(rootOf({ DISPATCH_SERVICE_ACCOUNT_ROOT: "" })).toBe("/")
    expect(rootOf({ DISPATCH_SERVICE_ACCOUNT_ROOT: root })).toBe(root)
  })
})

describe("dispatch serve in a pod", () => {
  const dir = mkdtempSync(join(tmpdir(), "dispatch-incluster-"))
  const root = join(dir, "pod")
  const mounted = join(root, serviceAccountDir)
  const adminToken = randomBytes(24).toString("base64url")
  const serviceToken = randomBytes(24).toString("base64url")
  const tokensFile = join(dir, "tokens.json")
  let simulator: Simulator
  let sim: SimServer
  let terminator: Server
  let podEnv: Record<string, string>
  const started: Array<Served> = []

  // What the API server answers the admin (a user of the simulator's own, in system:masters).
  const asAdmin = async (path: string, init: RequestInit = {}) => {
    const response = await fetch(`${sim.url}${path}`, { ...init, headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" } })
    return { status: response.status, body: (await response.json()) as Record<string, any> }
  }

  beforeAll(async () => {
    await ensureBuilt()
    // The RBAC `dispatch rbac` prints for the pod's ServiceAccount, as deploy/ applies it.
    const rbac = await dispatch(["rbac", "--namespace", namespace, "--service-account", account])
    expect(rbac.code).toBe(0)
    const objects = [
      { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } },
      ...parseAllDocuments(readFileSync(example("runtime.yaml"), "utf8")).map((d) => d.toJSON()),
      ...parseAllDocuments(rbac.stdout).map((d) => d.toJSON())
    ] as ReadonlyArray<KubeObject>
    simulator = new Simulator({
      objects,
      // A request without a token is nobody's: only the ServiceAccount's token can dispatch.
      rbac: { users: { [adminToken]: { name: "admin", groups: ["system:masters"] } }, defaultUser: { name: "system:anonymous", groups: ["system:unauthenticated"] } }
    })
    expect(simulator.rejectedSeeds).toEqual([])
    sim = await startSimServer({ simulator, tickMs: 20 })

    // A certificate for 127.0.0.1, which the mounted ca.crt is; TLS ends here and the bytes go on to the simulator.
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", join(dir, "key.pem"), "-out", join(dir, "cert.pem"), "-days", "1", "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"], { stdio: "ignore" })
    const simPort = Number(new URL(sim.url).port)
    terminator = createServer({ key: readFileSync(join(dir, "key.pem")), cert: readFileSync(join(dir, "cert.pem")) }, (socket) => {
      const upstream = connect(simPort, "127.0.0.1")
      socket.pipe(upstream).pipe(socket)
      socket.on("error", () => upstream.destroy())
      upstream.on("error", () => socket.destroy())
    })
    await new Promise<void>((resolve) => terminator.listen(0, "127.0.0.1", resolve))

    // The pod's mounted ServiceAccount: a token the API server issued for it (TokenRequest), the CA, the namespace.
    const issued = await asAdmin(`/api/v1/namespaces/${namespace}/serviceaccounts/${account}/token`, {
      method: "POST",
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} })
    })
    expect(issued.status).toBe(201)
    mkdirSync(mounted, { recursive: true })
    writeFileSync(join(mounted, "token"), String(issued.body["status"]["token"]))
    writeFileSync(join(mounted, "ca.crt"), readFileSync(join(dir, "cert.pem")))
    writeFileSync(join(mounted, "namespace"), namespace)
    writeFileSync(tokensFile, JSON.stringify([{ name: "t", group: "team", access: "write", tokenHash: hashToken(serviceToken, randomBytes(16)) }]))
    podEnv = {
      KUBERNETES_SERVICE_HOST: "127.0.0.1",
      KUBERNETES_SERVICE_PORT: String((terminator.address() as AddressInfo).port),
      DISPATCH_SERVICE_ACCOUNT_ROOT: root,
      // Nothing of the machine's own kubeconfig chain.
      KUBECONFIG: "",
      HOME: dir
    }
  }, processTestMs)
  afterAll(async () => {
    for (const s of started) await s.stop()
    await new Promise((resolve) => terminator?.close(resolve))
    await sim?.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const serveInPod = async (name: string, args: ReadonlyArray<string> = []): Promise<Served> => {
    const served = await background(["serve"], ["--tokens", tokensFile, "--data-dir", join(dir, name), ...args], undefined, podEnv)
    started.push(served)
    return served
  }

  const trainJobs = () => simulator.system.list("trainjobs", namespace).map((o) => (o as { metadata: { name: string } }).metadata.name)

  it("dispatches a job with the ServiceAccount's credentials, no flag given", async () => {
    const served = await serveInPod("a")
    const port = podEnv["KUBERNETES_SERVICE_PORT"]
    expect(served.stderr()).toContain(`dispatch serve: in a pod: dispatching to https://127.0.0.1:${port} as its ServiceAccount`)
    expect(served.stderr()).not.toContain("no cluster given")
    const at = serviceAt(serviceToken)(served.url)
    const { experiment, job } = await exampleExperiment(at)
    const created = await at.typed((c) => c.jobs.create({ params: { id: experiment }, payload: job as never }))
    let listed: Array<any> = []
    for (const end = Date.now() + 120_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      listed = await allJobs(at)
      if (listed.some((j) => j.id === created.id && j.dispatch?.trainJob?.name !== undefined)) break
    }
    const dispatched = listed.find((j) => j.id === created.id)
    expect(dispatched?.dispatch?.trainJob?.name).toBeDefined()
    // The TrainJob is on the cluster: made by the only identity the process held, the mounted token's.
    expect(trainJobs()).toContain(dispatched.dispatch.trainJob.name)
    await served.stop()
  }, processTestMs)

  it("is refused as that ServiceAccount once its RoleBinding is gone", async () => {
    const before = new Set(trainJobs())
    const removed = await asAdmin(`/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings/dispatch-${namespace}-${account}`, { method: "DELETE" })
    expect(removed.status).toBe(200)
    const served = await serveInPod("b")
    const at = serviceAt(serviceToken)(served.url)
    const { experiment, job } = await exampleExperiment(at, at, { tag: "-b" })
    const created = await at.typed((c) => c.jobs.create({ params: { id: experiment }, payload: job as never }))
    // The queue's gate reads the runtime first, and kube-apiserver's 403 names who was refused: the ServiceAccount.
    const refused = `User "${user}" cannot get resource "trainingruntimes" in API group "trainer.kubeflow.org" in the namespace "${namespace}"`
    let dispatchState: { readonly state?: string; readonly reason?: string; readonly attempts?: number } = {}
    for (const end = Date.now() + 120_000; Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      dispatchState = (await allJobs(at)).find((j) => j.id === created.id)?.dispatch ?? {}
      if (dispatchState.reason?.includes(refused) === true) break
    }
    expect(dispatchState).toMatchObject({ state: "pending", attempts: 0 })
    expect(dispatchState.reason).toContain(refused)
    expect(new Set(trainJobs())).toEqual(before)
    await served.stop()
  }, processTestMs)

  it("uses a kubeconfig given with --kubeconfig instead of the pod's credentials", async () => {
    const kubeconfig = join(dir, "admin.kubeconfig")
    writeFileSync(
      kubeconfig,
      JSON.stringify({
        apiVersion: "v1",
        kind: "Config",
        clusters: [{ name: "sim", cluster: { server: sim.url, "insecure-skip-tls-verify": true } }],
        users: [{ name: "admin", user: { token: adminToken } }],
        contexts: [{ name: "sim", context: { cluster: "sim", user: "admin", namespace } }],
        "current-context": "sim"
      })
    )
    // The ServiceAccount may do nothing (its RoleBinding gone): a dispatched job shows the kubeconfig's admin was used.
    const unbound = await asAdmin(`/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings/dispatch-${namespace}-${account}`, { method: "DELETE" })
    expect([200, 404]).toContain(unbound.status)
    const served = await serveInPod("c", ["--kubeconfig", kubeconfig])
    expect(served.stderr()).not.toContain("in a pod")
    expect(served.stderr()).not.toContain("no cluster given")
    const at = serviceAt(serviceToken)(served.url)
    const { experiment, job } = await exampleExperiment(at, at, { tag: "-c" })
    const created = await at.typed((c) => c.jobs.create({ params: { id: experiment }, payload: job as never }))
    let name: string | undefined
    for (const end = Date.now() + 120_000; name === undefined && Date.now() < end; await new Promise((r) => setTimeout(r, 200))) {
      name = (await allJobs(at)).find((j) => j.id === created.id)?.dispatch?.trainJob?.name
    }
    expect(trainJobs()).toContain(name)
    await served.stop()
  }, processTestMs)
})
