// The ServiceAccounts `dispatch sim serve --rbac --service-account NS/NAME` serves: each created (with its
// namespace) as `kubectl create serviceaccount` would, a token issued for it by the TokenRequest API as
// `kubectl create token` asks for one, and a kubeconfig user and context carrying that token, named as
// Kubernetes names the account's user (system:serviceaccount:NS:NAME), beside the admin's.
import { Result } from "effect"
import type { Simulator } from "@dispatch/sim"
import { parse, stringify } from "yaml"
import type { ServiceAccountRef } from "../SimServeArgs.ts"

/** How long a token `sim serve` issues lives on the simulator's clock (which follows real time): a year,
 * so that a long-lived simulator's kubeconfig keeps working, as a legacy token Secret's did. */
export const serviceAccountTokenSeconds = 365 * 24 * 3600

/** The user (and context) name of a ServiceAccount: the user name Kubernetes authenticates it as. */
export const serviceAccountUserName = (ref: ServiceAccountRef): string => `system:serviceaccount:${ref.namespace}:${ref.name}`

/** A ServiceAccount and the bearer token the simulator issued for it. */
export interface AccountToken {
  readonly account: ServiceAccountRef
  readonly token: string
}

const messageOf = (body: unknown): string => (typeof body === "object" && body !== null && "message" in body ? String(body.message) : JSON.stringify(body))

/** Creates each ServiceAccount (and namespace) the simulator lacks and issues a token for it; fails naming every refusal. */
export const serviceAccountTokens = (simulator: Simulator, accounts: ReadonlyArray<ServiceAccountRef>): Result.Result<ReadonlyArray<AccountToken>, ReadonlyArray<string>> => {
  const problems: Array<string> = []
  const issued: Array<AccountToken> = []
  for (const account of accounts) {
    const what = `--service-account ${account.namespace}/${account.name}`
    if (simulator.system.get("namespaces", undefined, account.namespace) === undefined) {
      const made = simulator.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: account.namespace } })
      if (made.code >= 300) problems.push(`${what}: namespace refused (${made.code}): ${messageOf(made.body)}`)
    }
    if (simulator.system.get("serviceaccounts", account.namespace, account.name) === undefined) {
      const made = simulator.system.create("serviceaccounts", { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: account.name, namespace: account.namespace } })
      if (made.code >= 300) problems.push(`${what}: ServiceAccount refused (${made.code}): ${messageOf(made.body)}`)
    }
    const answer = simulator.requestToken({
      verb: "create",
      group: "",
      version: "v1",
      resource: "serviceaccounts",
      namespace: account.namespace,
      name: account.name,
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: { expirationSeconds: serviceAccountTokenSeconds } }
    })
    const token = (answer.body as { readonly status?: { readonly token?: unknown } } | null)?.status?.token
    if (answer.code >= 300 || typeof token !== "string") problems.push(`${what}: TokenRequest refused (${answer.code}): ${messageOf(answer.body)}`)
    else issued.push({ account, token })
  }
  return problems.length > 0 ? Result.fail(problems) : Result.succeed(issued)
}

interface Kubeconfig {
  readonly clusters: ReadonlyArray<{ readonly name: string }>
  readonly users: ReadonlyArray<unknown>
  readonly contexts: ReadonlyArray<{ readonly name: string; readonly context: { readonly namespace?: string } }>
}

/** The kubeconfig with a user and a context per ServiceAccount (on the same cluster, in the account's
 * namespace); its current context, the admin's, is left as it is. */
export const withServiceAccountUsers = (kubeconfig: string, tokens: ReadonlyArray<AccountToken>): string => {
  if (tokens.length === 0) return kubeconfig
  const config = parse(kubeconfig) as Kubeconfig
  const cluster = config.clusters[0]?.name ?? ""
  return stringify({
    ...config,
    users: [...config.users, ...tokens.map(({ account, token }) => ({ name: serviceAccountUserName(account), user: { token } }))],
    contexts: [...config.contexts, ...tokens.map(({ account }) => ({ name: serviceAccountUserName(account), context: { cluster, user: serviceAccountUserName(account), namespace: account.namespace } }))]
  })
}
