import { Clock, Effect, Layer } from "effect"
import type { KubeConfig } from "@kubernetes/client-node"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { urlToHttpOptions } from "node:url"
import { ClusterError } from "./ClusterError.ts"
import { Cluster, type ClusterShape, type PodLogOptions } from "./Cluster.ts"
import { clusterOverTransport, type ClusterCall, malformed } from "./ClusterCall.ts"
import { KeepAliveAgents } from "./KeepAliveAgents.ts"
import { type Authentication, KubeCredentials, watchingAuthenticators } from "./KubeCredentials.ts"
import { type HttpAnswer, type HttpRequest, type HttpServer, sendRequest, streamRequest } from "./KeepAliveHttp.ts"
import { describeCall, type ObjectKey, Pods } from "./ResourceKind.ts"
import { type CallAttributes, clusterErrorOf, isSuccessCode } from "./StatusMapping.ts"

// client-node costs about a second of CPU and tens of MB to load: it is loaded when a kubeconfig is, not by every
// program that imports this package (a job service on the simulator, or with no cluster, never needs it).
/** client-node, loaded on first use. */
export const clientNode = (): Promise<typeof import("@kubernetes/client-node")> => (loading ??= import("@kubernetes/client-node"))
// The one module-level variable of this package: a memo of a constant input (the import of one pinned
// module), the same for every cluster and service in the process; it holds no state of theirs.
let loading: Promise<typeof import("@kubernetes/client-node")> | undefined

/** Where KubeCluster finds its cluster, and how long one call may take. */
export interface KubeClusterOptions {
  /** A kubeconfig file; absent means client-node's default chain (KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeconfigPath?: string
  /** The call timeout (timeouts.callMs): each request is aborted after this long. */
  readonly callMs: number
}

const parseBody = (body: unknown): unknown => {
  if (typeof body !== "string") return body
  try {
    return JSON.parse(body) as unknown
  } catch {
    return body
  }
}

// Connection refused and name/route failures mean nothing reached the server; a reset or an abort means
// the request may have been applied. Only codes and names are kept: messages carry URLs.
const sentCodes = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET", "UND_ERR_HEADERS_TIMEOUT", "UND_ERR_BODY_TIMEOUT", "UND_ERR_ABORTED"])

/** Classifies what a call threw before it had an answer (the connection, the timeout, or client-node's
 * authentication) into a ClusterError. */
export const clusterErrorOfThrown = (description: string, thrown: unknown): ClusterError => {
  const record = typeof thrown === "object" && thrown !== null ? (thrown as Record<string, unknown>) : {}
  const name = typeof record["name"] === "string" ? record["name"] : undefined
  const code = typeof record["code"] === "string" ? record["code"] : undefined
  if (name === "AbortError" || name === "TimeoutError" || record["type"] === "aborted") {
    return new ClusterError({ reason: "Unanswered", call: description, detail: name ?? "AbortError" })
  }
  if (code !== undefined && sentCodes.has(code)) return new ClusterError({ reason: "Unanswered", call: description, detail: code })
  return new ClusterError({ reason: "Unreachable", call: description, detail: code ?? name ?? "unknown" })
}

// The paths, methods and headers client-node's CustomObjectsApi uses for these calls.
const accept = "application/json, */*;q=0.8"

// The core group (pods) is served under /api, every other group under /apis.
const apiRoot = (group: string, version: string): string =>
  group === "" ? `/api/${encodeURIComponent(version)}` : `/apis/${encodeURIComponent(group)}/${encodeURIComponent(version)}`

const pathOf = (call: ClusterCall): string => {
  const { group, version, plural } = call.kind
  const e = encodeURIComponent
  // A call that names no namespace is cluster-scoped (a list: cluster-wide).
  const namespace = call.namespace
  const collection = `${apiRoot(group, version)}${namespace === undefined ? "" : `/namespaces/${e(namespace)}`}/${e(plural)}`
  if (call.verb === "list" || call.verb === "create") return collection
  return `${collection}/${e(call.name ?? "")}${call.verb === "patch" && call.status === true && namespace !== undefined ? "/status" : ""}`
}

const methods = { get: "GET", list: "GET", create: "POST", patch: "PATCH", delete: "DELETE" } as const

const contentTypes = { create: "application/json", patch: "application/merge-patch+json", delete: "application/json" } as const

// An authenticated request to `path` (with its query) on the cluster's server: the call's own headers, then
// the credentials' (client-node's RequestContext also parses the URL and keeps query parameters in a
// URLSearchParams, work this file does once per cluster instead of once per call).
const authenticated = (authentication: Authentication, server: ServerAddress, method: string, path: string, headers: Record<string, string>, body: string | undefined): HttpRequest => {
  const { agent, tls, proxied } = authentication
  return { server: server.options, path: server.prefix + path, method, headers: { ...headers, ...authentication.headers }, ...(body === undefined ? {} : { body }), tls, proxied, ...(agent === undefined ? {} : { agent }) }
}

/** Where the cluster's server is: node:http's options for its origin, and the path its URL puts before every API path. */
interface ServerAddress {
  readonly options: HttpServer
  readonly prefix: string
}

// Parsed once per cluster. The prefix is the URL's text after the origin, as client-node appends API paths to it.
const serverAddress = (server: string): ServerAddress => {
  const url = new URL(server)
  const { protocol, hostname, port } = urlToHttpOptions(url)
  return {
    options: { origin: url.origin, protocol: protocol ?? "https:", hostname: hostname ?? "", ...(port === undefined || port === "" ? {} : { port: Number(port) }) },
    prefix: server.slice(url.origin.length)
  }
}

// The request for one call.
const requestFor = (authentication: Authentication, server: ServerAddress, call: ClusterCall): HttpRequest => {
  const query = call.verb === "list" && call.labelSelector !== undefined && call.labelSelector !== "" ? `?${new URLSearchParams({ labelSelector: call.labelSelector }).toString()}` : ""
  if (call.verb === "get" || call.verb === "list") return authenticated(authentication, server, methods[call.verb], pathOf(call) + query, { Accept: accept }, undefined)
  return authenticated(authentication, server, methods[call.verb], pathOf(call), { Accept: accept, "Content-Type": contentTypes[call.verb] }, JSON.stringify(call.body ?? {}))
}

// GET .../pods/NAME/log with kubectl's query parameters.
const logRequestFor = (authentication: Authentication, server: ServerAddress, key: ObjectKey, options: PodLogOptions): HttpRequest => {
  const e = encodeURIComponent
  const query = new URLSearchParams()
  if (options.container !== undefined) query.set("container", options.container)
  if (options.follow === true) query.set("follow", "true")
  if (options.previous === true) query.set("previous", "true")
  if (options.tailLines !== undefined) query.set("tailLines", String(options.tailLines))
  if (options.sinceSeconds !== undefined) query.set("sinceSeconds", String(options.sinceSeconds))
  const search = query.size === 0 ? "" : `?${query.toString()}`
  return authenticated(authentication, server, "GET", `/api/v1/namespaces/${e(key.namespace ?? "")}/pods/${e(key.name)}/log${search}`, { Accept: "text/plain, */*" }, undefined)
}

/** Splits streamed text into lines: each whole line goes to `onLine` as it completes, the last one when the text ends. */
export const lineSplitter = (onLine: (line: string) => void): { readonly push: (chunk: string) => void; readonly end: () => void } => {
  let pending = ""
  return {
    push: (chunk) => {
      pending += chunk
      const lines = pending.split("\n")
      pending = lines.pop() ?? ""
      for (const line of lines) onLine(line)
    },
    end: () => {
      if (pending !== "") onLine(pending)
      pending = ""
    }
  }
}

// What a call asks for, as the authorizer sees it (a write to the status subresource is a patch of `<resource>/status`).
const attributesOf = (call: ClusterCall): CallAttributes => ({
  verb: call.verb,
  group: call.kind.group,
  resource: call.kind.plural,
  ...(call.status === true ? { subresource: "status" } : {}),
  ...(call.kind.namespaced && call.namespace !== undefined ? { namespace: call.namespace } : {})
})

// A 2xx answer is the body, parsed; anything else the ClusterError it stands for.
const answerOf = (call: ClusterCall, answer: HttpAnswer): Effect.Effect<unknown, ClusterError> => {
  if (!isSuccessCode(answer.status)) return Effect.fail(clusterErrorOf(call.description, answer.status, parseBody(answer.text), answer.retryAfter, attributesOf(call)))
  try {
    return Effect.succeed(JSON.parse(answer.text) as unknown)
  } catch {
    return Effect.fail(malformed(call))
  }
}

/**
 * The Cluster operations over a loaded KubeConfig: client-node authenticates each call, and calls share
 * keep-alive connections (KeepAliveHttp); idle ones close on their own and never keep the process alive.
 * Credentials written in the kubeconfig are kept between calls only for a KubeConfig from loadKubeConfig
 * (any other may have authenticators added to it, so client-node is asked on every call).
 */
export const makeKubeCluster = (config: KubeConfig, callMs: number): ClusterShape => {
  const url = config.getCurrentCluster()?.server ?? ""
  // Parsed on first use, so a kubeconfig whose server is no URL fails its calls as before, not this constructor.
  let parsed: ServerAddress | undefined
  const server = (): ServerAddress => (parsed ??= serverAddress(url))
  const agents = new KeepAliveAgents()
  const credentials = new KubeCredentials(config)
  // Kept credentials send the request at once; client-node's are awaited first. The server's address is
  // read before the credentials, so a kubeconfig wrong in both fails on its server, as client-node did.
  // The call resumes once, with the answer already classified: no promise, and no further step, per call.
  const transport = (call: ClusterCall): Effect.Effect<unknown, ClusterError> =>
    Effect.callback((resume) => {
      const fail = (thrown: unknown): void => resume(Effect.fail(clusterErrorOfThrown(call.description, thrown)))
      const outcome = { onAnswer: (answer: HttpAnswer) => resume(answerOf(call, answer)), onError: fail }
      // Whatever throws before the request is sent (a body that is no JSON, a header undici refuses,
      // client-node's authentication) fails the call as a thrown error would have.
      const attempt = (send: () => void): void => {
        try {
          send()
        } catch (thrown) {
          fail(thrown)
        }
      }
      attempt(() => {
        const address = server()
        const authentication = credentials.current()
        if (authentication instanceof Promise) authentication.then((asked) => attempt(() => sendRequest(agents, callMs, requestFor(asked, address, call), outcome)), fail)
        else sendRequest(agents, callMs, requestFor(authentication, address, call), outcome)
      })
    })
  return clusterOverTransport(
    transport,
    {
      podLog: (key, options, onLine) => {
        const description = describeCall("get", Pods, key) + "/log"
        const lines = lineSplitter(onLine)
        return Effect.tryPromise({
          try: (signal) =>
            Promise.resolve().then(() => {
              const address = server()
              return Promise.resolve(credentials.current()).then((authentication) => streamRequest(callMs, logRequestFor(authentication, address, key, options), lines.push, signal))
            }),
          catch: (thrown) => clusterErrorOfThrown(description, thrown)
        }).pipe(
          Effect.flatMap((answer) => (isSuccessCode(answer.status) || answer.status === 0 ? Effect.sync(lines.end) : Effect.fail(clusterErrorOf(description, answer.status, parseBody(answer.text), undefined, { verb: "get", group: Pods.group, resource: Pods.plural, subresource: "log", namespace: key.namespace }))))
        )
      },
      // As kubectl: a real server's timestamps are read against this machine's clock.
      now: Clock.currentTimeMillis
    }
  )
}

// Why a kubeconfig could not be used, without its text: a parse error may quote the file, tokens included.
const whyUnusable = (thrown: unknown): string => {
  const code = (thrown as { readonly code?: unknown } | null)?.code
  if (typeof code === "string") return `unreadable kubeconfig (${code})`
  return "unreadable kubeconfig: not a kubeconfig document"
}

/** Loads a kubeconfig and checks it names a current cluster (client-node throws on its first call
 * otherwise); a failure names the file and why, never its contents. */
export const loadKubeConfig = (path: string | undefined): Effect.Effect<KubeConfig, ClusterError> => {
  const call = `load kubeconfig ${path ?? "(default chain)"}`
  return Effect.tryPromise({
    try: async () => {
      const { KubeConfig } = await clientNode()
      // Watched from its creation, so its credentials can be kept between calls (KubeCredentials).
      const config = watchingAuthenticators(new KubeConfig())
      if (path === undefined) config.loadFromDefault()
      else config.loadFromFile(path)
      return config
    },
    catch: (thrown) => new ClusterError({ reason: "Unreachable", call, detail: whyUnusable(thrown) })
  }).pipe(
    Effect.filterOrFail(
      (config) => config.getCurrentCluster() !== null,
      () => new ClusterError({ reason: "Unreachable", call, detail: "the kubeconfig has no current cluster (current-context unset or naming no cluster)" })
    )
  )
}

/** Where Kubernetes mounts a pod's ServiceAccount credentials: `token`, `ca.crt` and `namespace`. */
export const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

/** Whether this process runs in a pod, as client-node judges one: KUBERNETES_SERVICE_HOST and
 * KUBERNETES_SERVICE_PORT name the API server, and the ServiceAccount's token is mounted (under `root`, `/` in a pod). */
export const runsInPod = (env: Readonly<Record<string, string | undefined>>, root: string): boolean =>
  (env["KUBERNETES_SERVICE_HOST"] ?? "") !== "" && (env["KUBERNETES_SERVICE_PORT"] ?? "") !== "" && existsSync(join(root, serviceAccountDir, "token"))

/** A pod's ServiceAccount as a KubeConfig, made by client-node's in-cluster loader: the API server at
 * KUBERNETES_SERVICE_HOST:KUBERNETES_SERVICE_PORT checked with the mounted `ca.crt`, the token file read again
 * as the kubelet rotates it, and the mounted namespace; the files are read under `root` (`/` in a pod). */
export const loadInClusterKubeConfig = (root: string): Effect.Effect<KubeConfig, ClusterError> =>
  Effect.tryPromise({
    try: async () => {
      const { KubeConfig } = await clientNode()
      const config = watchingAuthenticators(new KubeConfig())
      // client-node prefixes its absolute paths with this text: the root without its trailing slashes.
      config.loadFromCluster(root.replace(/\/+$/, ""))
      return config
    },
    catch: (thrown) => new ClusterError({ reason: "Unreachable", call: `load the in-cluster config under ${root}`, detail: thrown instanceof Error ? thrown.message : String(thrown) })
  })

/** Provides Cluster over a real API server through client-node. */
export const KubeCluster = (options: KubeClusterOptions): Layer.Layer<Cluster, ClusterError> =>
  Layer.effect(Cluster, Effect.map(loadKubeConfig(options.kubeconfigPath), (config) => makeKubeCluster(config, options.callMs)))
