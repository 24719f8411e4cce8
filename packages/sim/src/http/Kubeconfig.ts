// A kubeconfig pointing kubectl or client-node at a simulator server. Plain http needs
// insecure-skip-tls-verify, or client-node refuses to use the cluster entry.
import { stringify } from "yaml"

/** What a kubeconfig may carry besides the server: the bearer token and the default namespace. */
export interface KubeconfigOptions {
  readonly token?: string
  readonly namespace?: string
}

/** The name used for the cluster, user and context entries of a simulator kubeconfig. */
export const kubeconfigEntryName = "dispatch-sim"

/** Renders a kubeconfig (YAML) for a simulator server at `server.url`. */
export const kubeconfigFor = (server: { readonly url: string }, options: KubeconfigOptions = {}): string =>
  stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [
      {
        name: kubeconfigEntryName,
        cluster: {
          server: server.url,
          ...(server.url.startsWith("http://") ? { "insecure-skip-tls-verify": true } : {})
        }
      }
    ],
    users: [{ name: kubeconfigEntryName, user: options.token === undefined ? {} : { token: options.token } }],
    contexts: [
      {
        name: kubeconfigEntryName,
        context: {
          cluster: kubeconfigEntryName,
          user: kubeconfigEntryName,
          ...(options.namespace === undefined ? {} : { namespace: options.namespace })
        }
      }
    ],
    "current-context": kubeconfigEntryName,
    preferences: {}
  })
