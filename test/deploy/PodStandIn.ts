// A stand-in for the pod a Deployment would run, where the cluster runs no pods (the simulator): `dispatch serve`
// started on this machine with the container's environment as the kubelet would make it from what the cluster
// stores (its values, its Secrets' keys, the pod's name), its Secret volumes' files written under a scratch root
// (every path the environment names there moved under it), and its ServiceAccount's token from the TokenRequest
// API. Only the address differs: it listens where the caller says, as `kubectl port-forward` would make it reachable.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { stringify } from "yaml"
import { serveReadyLine } from "../../packages/cli/src/commands/ServeReady.ts"
import { binary, kubectl, processBoundMs } from "../../packages/cli/test/DispatchBinary.ts"

interface EnvVar {
  readonly name: string
  readonly value?: string
  readonly valueFrom?: {
    readonly secretKeyRef?: { readonly name: string; readonly key: string }
    readonly fieldRef?: { readonly fieldPath: string }
  }
}
interface Container {
  readonly name: string
  readonly env?: ReadonlyArray<EnvVar>
  readonly volumeMounts?: ReadonlyArray<{ readonly name: string; readonly mountPath: string }>
}
interface Volume {
  readonly name: string
  readonly secret?: { readonly secretName: string }
}

/** A Deployment's pod, stood in for: where it listens, its environment, and how to stop it. */
export interface PodStandIn {
  readonly url: string
  readonly env: Readonly<Record<string, string>>
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

/** Where the cluster is, who asks, and where the stand-in lives and listens. */
export interface StandInOptions {
  readonly kubeconfig: string
  readonly namespace: string
  readonly deployment: string
  readonly root: string
  readonly host: string
  readonly port: number
}

const kubectlJson = async (kubeconfig: string, args: ReadonlyArray<string>): Promise<any> => {
  const got = await kubectl(["--kubeconfig", kubeconfig, ...args, "-o", "json"])
  if (got.code !== 0) throw new Error(`kubectl ${args.join(" ")}: ${got.stderr}`)
  return JSON.parse(got.stdout)
}

/** A Secret's keys, decoded. */
const secretData = async (o: StandInOptions, name: string): Promise<Readonly<Record<string, string>>> => {
  const secret = await kubectlJson(o.kubeconfig, ["get", "secret", name, "-n", o.namespace])
  return Object.fromEntries(Object.entries((secret.data ?? {}) as Record<string, string>).map(([k, v]) => [k, Buffer.from(v, "base64").toString("utf8")]))
}

/** `dispatch serve` standing in for the Deployment's pod; resolves once it serves (its ready line), fails with its stderr if it exits. */
export const standInForPod = async (o: StandInOptions): Promise<PodStandIn> => {
  const deployment = await kubectlJson(o.kubeconfig, ["get", "deployment", o.deployment, "-n", o.namespace])
  const pod = deployment.spec.template.spec
  const containers = pod.containers as ReadonlyArray<Container>
  if (containers.length !== 1) throw new Error(`the pod has ${containers.length} containers; the stand-in runs one`)
  const container = containers[0] as Container
  const podName = `${o.deployment}-standin`
  const mounts = container.volumeMounts ?? []
  // The volumes: a Secret's keys as files, anything else (emptyDir, a claim) an empty directory.
  for (const mount of mounts) {
    const at = join(o.root, mount.mountPath)
    mkdirSync(at, { recursive: true })
    const volume = (pod.volumes as ReadonlyArray<Volume>).find((v) => v.name === mount.name)
    if (volume?.secret !== undefined) for (const [key, text] of Object.entries(await secretData(o, volume.secret.secretName))) writeFileSync(join(at, key), text)
  }
  const underRoot = (value: string) => (mounts.some((m) => value === m.mountPath || value.startsWith(`${m.mountPath}/`)) ? join(o.root, value) : value)
  const env: Record<string, string> = {}
  for (const v of container.env ?? []) {
    const ref = v.valueFrom
    if (ref?.secretKeyRef !== undefined) {
      const value = (await secretData(o, ref.secretKeyRef.name))[ref.secretKeyRef.key]
      if (value === undefined) throw new Error(`Secret ${ref.secretKeyRef.name} has no key ${ref.secretKeyRef.key}`)
      env[v.name] = value
    } else if (ref?.fieldRef !== undefined) {
      const fields: Record<string, string> = { "metadata.name": podName, "metadata.namespace": o.namespace }
      const value = fields[ref.fieldRef.fieldPath]
      if (value === undefined) throw new Error(`the stand-in has no field ${ref.fieldRef.fieldPath}`)
      env[v.name] = value
    } else if (v.value !== undefined) env[v.name] = underRoot(v.value)
    else throw new Error(`the stand-in cannot make ${v.name}'s value`)
  }
  env["DISPATCH_HOST"] = o.host
  env["DISPATCH_PORT"] = String(o.port)

  // The pod's ServiceAccount credentials: a token the API server issues for it, and the cluster's address.
  const server = await kubectl(["--kubeconfig", o.kubeconfig, "config", "view", "--minify", "-o", "jsonpath={.clusters[0].cluster.server}"])
  const token = await kubectl(["--kubeconfig", o.kubeconfig, "create", "token", pod.serviceAccountName, "-n", o.namespace])
  if (server.code !== 0 || token.code !== 0) throw new Error(`the ServiceAccount's credentials: ${server.stderr}${token.stderr}`)
  const credentials = join(o.root, "serviceaccount.kubeconfig")
  const user = `system:serviceaccount:${o.namespace}:${pod.serviceAccountName}`
  writeFileSync(
    credentials,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "cluster", cluster: { server: server.stdout, "insecure-skip-tls-verify": true } }],
      users: [{ name: user, user: { token: token.stdout.trim() } }],
      contexts: [{ name: user, context: { cluster: "cluster", user, namespace: o.namespace } }],
      "current-context": user
    })
  )

  const child: ChildProcess = spawn("node", [binary, ...(container as { args?: ReadonlyArray<string> }).args ?? [], "--kubeconfig", credentials], {
    cwd: o.root,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env["PATH"] ?? "", HOME: o.root, ...env }
  })
  let err = ""
  child.stderr?.on("data", (chunk: Buffer) => (err += chunk.toString()))
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done()
      child.once("exit", () => done())
      child.kill("SIGTERM")
    })
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the stand-in did not serve within ${processBoundMs} ms: ${err}`)), processBoundMs)
    const exited = (code: number | null) => reject(new Error(`the stand-in exited ${code}: ${err}`))
    child.once("exit", exited)
    child.stderr?.on("data", () => {
      if (!new RegExp(`^${serveReadyLine}`, "m").test(err)) return
      clearTimeout(timer)
      child.off("exit", exited)
      resolve()
    })
  }).catch(async (e) => {
    await stop()
    throw e
  })
  return { url: `http://${o.host}:${o.port}`, env, stderr: () => err, stop }
}
