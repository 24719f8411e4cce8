import { Effect, Layer } from "effect"
import { ApiException, CustomObjectsApi, KubeConfig, Observable, PatchStrategy, type ConfigurationOptions, type ObservableMiddleware } from "@kubernetes/client-node"
import { ClusterError } from "./ClusterError.ts"
import { Cluster, type ClusterShape } from "./Cluster.ts"
import { clusterOverTransport, type ClusterCall } from "./ClusterCall.ts"
import { KeepAliveAgents } from "./KeepAliveAgents.ts"
import { keepAliveHttp } from "./KeepAliveHttp.ts"
import { clusterErrorOf } from "./StatusMapping.ts"

/** Where KubeCluster finds its cluster, and how long one call may take. */
export interface KubeClusterOptions {
  /** A kubeconfig file; absent means client-node's default chain (KUBECONFIG, ~/.kube/config, in-cluster). */
  readonly kubeconfigPath?: string
  /** The call timeout (timeouts.callMs): each request is aborted after this long. */
  readonly callMs: number
}

const mergePatchMiddleware: ObservableMiddleware = {
  pre: (context) => {
    context.setHeaderParam("Content-Type", PatchStrategy.MergePatch)
    return new Observable(Promise.resolve(context))
  },
  post: (response) => new Observable(Promise.resolve(response))
}

interface CallOptions {
  readonly plain: ConfigurationOptions<ObservableMiddleware>
  readonly patch: ConfigurationOptions<ObservableMiddleware>
}

// Built once per cluster. Every call goes through KeepAliveHttp, so calls share connections, and it
// times each call out (client-node has no default timeout). "append" makes client-node build a new
// middleware list per call (it reverses that list in place).
const callOptions = (callMs: number): CallOptions => {
  const httpApi = keepAliveHttp(new KeepAliveAgents(), callMs)
  return {
    plain: { httpApi },
    patch: { httpApi, middleware: [mergePatchMiddleware], middlewareMergeStrategy: "append" }
  }
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
const sentCodes = new Set(["ECONNRESET", "EPIPE", "ETIMEDOUT", "UND_ERR_SOCKET"])

/** Classifies whatever client-node threw into a ClusterError. */
export const clusterErrorOfThrown = (description: string, thrown: unknown): ClusterError => {
  if (thrown instanceof ApiException) return clusterErrorOf(description, thrown.code, parseBody(thrown.body))
  const record = typeof thrown === "object" && thrown !== null ? (thrown as Record<string, unknown>) : {}
  const name = typeof record["name"] === "string" ? record["name"] : undefined
  const code = typeof record["code"] === "string" ? record["code"] : undefined
  if (name === "AbortError" || name === "TimeoutError" || record["type"] === "aborted") {
    return new ClusterError({ reason: "Unanswered", call: description, detail: name ?? "AbortError" })
  }
  if (code !== undefined && sentCodes.has(code)) return new ClusterError({ reason: "Unanswered", call: description, detail: code })
  return new ClusterError({ reason: "Unreachable", call: description, detail: code ?? name ?? "unknown" })
}

const perform = (api: CustomObjectsApi, call: ClusterCall, calls: CallOptions): Promise<unknown> => {
  const { group, version, plural } = call.kind
  const ns = call.namespace
  const name = call.name ?? ""
  const options = call.verb === "patch" ? calls.patch : calls.plain
  const body = call.body ?? {}
  switch (call.verb) {
    case "get":
      return ns === undefined
        ? api.getClusterCustomObject({ group, version, plural, name }, options)
        : api.getNamespacedCustomObject({ group, version, namespace: ns, plural, name }, options)
    case "list":
      return api.listNamespacedCustomObject({ group, version, namespace: ns ?? "", plural, ...(call.labelSelector === undefined ? {} : { labelSelector: call.labelSelector }) }, options)
    case "create":
      return ns === undefined
        ? api.createClusterCustomObject({ group, version, plural, body }, options)
        : api.createNamespacedCustomObject({ group, version, namespace: ns, plural, body }, options)
    case "patch":
      if (ns === undefined) return api.patchClusterCustomObject({ group, version, plural, name, body }, options)
      return call.status === true
        ? api.patchNamespacedCustomObjectStatus({ group, version, namespace: ns, plural, name, body }, options)
        : api.patchNamespacedCustomObject({ group, version, namespace: ns, plural, name, body }, options)
    case "delete":
      return ns === undefined
        ? api.deleteClusterCustomObject({ group, version, plural, name, body }, options)
        : api.deleteNamespacedCustomObject({ group, version, namespace: ns, plural, name, body }, options)
  }
}

/**
 * The Cluster operations over client-node with a loaded KubeConfig. Calls share keep-alive connections;
 * idle ones close on their own and never keep the process alive.
 */
export const makeKubeCluster = (config: KubeConfig, callMs: number): ClusterShape => {
  const api = config.makeApiClient(CustomObjectsApi)
  const calls = callOptions(callMs)
  return clusterOverTransport((call) =>
    Effect.tryPromise({ try: () => perform(api, call, calls), catch: (thrown) => clusterErrorOfThrown(call.description, thrown) })
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
  return Effect.try({
    try: () => {
      const config = new KubeConfig()
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

/** Provides Cluster over a real API server through client-node. */
export const KubeCluster = (options: KubeClusterOptions): Layer.Layer<Cluster, ClusterError> =>
  Layer.effect(Cluster, Effect.map(loadKubeConfig(options.kubeconfigPath), (config) => makeKubeCluster(config, options.callMs)))
