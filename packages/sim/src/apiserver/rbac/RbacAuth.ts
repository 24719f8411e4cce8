// Authentication and RBAC authorization over the store, as kube-apiserver chains them: a bearer token
// names a user (a kubeconfig user from the simulator's table, or a service account whose token the
// TokenRequest API issued); a request without one acts as the simulator's default user, a cluster
// admin, so that a simulator with RBAC answers its own kubeconfig as one without does. Then RBAC
// decides from the Roles, ClusterRoles and bindings stored at that moment.
import type { ApiRequest, ApiResponse, Impersonation, KubeObject, Resource } from "../../Api.ts"
import type { Store } from "../store/Store.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { forbiddenFor } from "../Auth.ts"
import { forbidden, notFound, unauthorized } from "../StatusErrors.ts"
import { qualifiedResource } from "../ResourceNames.ts"
import { escalationProblem } from "./Escalation.ts"
import { type PolicyRule, type RbacObjects, type RequestAttributes, type UserInfo, mastersGroup, rbacDecision, rulesFor, rulesOf, serviceAccountGroups, serviceAccountUser } from "./RbacRules.ts"

/** How a simulator with RBAC authenticates. */
export interface RbacOptions {
  /** Users by bearer token (the kubeconfig users); each is also in `system:authenticated`. */
  readonly users?: Readonly<Record<string, { readonly name: string; readonly groups?: ReadonlyArray<string> }>>
  /** Who a request without a token acts as (default: `defaultUser`, a cluster admin). */
  readonly defaultUser?: UserInfo
}

/** The user a request without a token acts as unless told otherwise: in system:masters, so allowed everything. */
export const defaultUser: UserInfo = { name: "sim-admin", groups: [mastersGroup, "system:authenticated"] }

/** The group every authenticated user is in. */
export const authenticatedGroup = "system:authenticated"

/** What RBAC reads of the store. */
export type RbacStore = Pick<Store, "get" | "list">

/** The RBAC objects in a store, read at the moment of the call. */
export const storedRbac = (store: RbacStore): RbacObjects => ({
  clusterRoleBindings: () => store.list("clusterrolebindings"),
  roleBindings: (namespace) => store.list("rolebindings", namespace),
  role: (namespace, name) => store.get("roles", namespace, name),
  clusterRole: (name) => store.get("clusterroles", undefined, name)
})

/** A service account token the TokenRequest API issued: whose it is, and the account's uid then. */
interface IssuedToken {
  readonly namespace: string
  readonly name: string
  readonly uid: string
  readonly expiresAt: number
}

const text = (value: unknown): string => (typeof value === "string" ? value : "")

/**
 * The one name a list or watch selects with `metadata.name=<name>`: kube-apiserver's request info takes
 * it as the request's name, so a rule's resourceNames can allow watching one object.
 */
export const selectedName = (fieldSelector: string | undefined): string | undefined => {
  for (const term of (fieldSelector ?? "").split(",")) {
    const match = /^\s*metadata\.name\s*==?\s*(.*?)\s*$/.exec(term)
    if (match !== null) return match[1]
  }
  return undefined
}

/** The RBAC API group, whose writes the escalation check guards. */
export const rbacGroup = "rbac.authorization.k8s.io"

// A resource as a refusal names it (impersonation's users, groups and service accounts; a binding's role).
const namedResource = (group: string, plural: string, namespaced: boolean): Resource => ({
  group,
  versions: ["v1"],
  kind: plural,
  listKind: plural,
  plural,
  singular: plural.slice(0, -1),
  shortNames: [],
  namespaced,
  hasStatus: false
})
const usersResource = namedResource("", "users", false)
const groupsResource = namedResource("", "groups", false)
const serviceAccountsResource = namedResource("", "serviceaccounts", true)
const rolesResource = namedResource(rbacGroup, "roles", true)
const clusterRolesResource = namedResource(rbacGroup, "clusterroles", false)

/** Who a request acts as, or the answer refusing it (401 for an unknown token, 403 for an impersonation not allowed). */
export type Identity = { readonly ok: true; readonly user: UserInfo } | { readonly ok: false; readonly response: ApiResponse }

/** Tokens and the users they name, and RBAC's decisions over one store. */
export class RbacAuth {
  private readonly issued = new Map<string, IssuedToken>()

  constructor(
    private readonly store: RbacStore,
    private readonly options: RbacOptions,
    private readonly now: () => number
  ) {}

  /** The caller a token names (the default user without one), or undefined for a token nobody issued. */
  authenticate(token: string | undefined): UserInfo | undefined {
    if (token === undefined) return this.options.defaultUser ?? defaultUser
    const users = this.options.users ?? {}
    if (Object.hasOwn(users, token)) {
      const user = users[token]
      if (user !== undefined) return { name: user.name, groups: [...(user.groups ?? []), authenticatedGroup] }
    }
    const issued = this.issued.get(token)
    if (issued === undefined || this.now() >= issued.expiresAt) return undefined
    // A token outlives neither its service account nor a new account of the same name.
    const account = this.store.get("serviceaccounts", issued.namespace, issued.name)
    const uid = isJsonObject(account?.["metadata"]) ? text(account["metadata"]["uid"]) : ""
    if (account === undefined || uid !== issued.uid) return undefined
    return { name: serviceAccountUser(issued.namespace, issued.name), groups: [...serviceAccountGroups(issued.namespace), authenticatedGroup] }
  }

  /**
   * The user a request acts as: the token's, or the one it impersonates when the token's user may
   * `impersonate` that user (or service account) and each group asked for, as kube-apiserver's
   * impersonation filter allows it. An impersonated service account is in its own groups unless groups are asked for.
   */
  identify(token: string | undefined, impersonate: Impersonation | undefined): Identity {
    const caller = this.authenticate(token)
    if (caller === undefined) return { ok: false, response: unauthorized() }
    if (impersonate === undefined) return { ok: true, user: caller }
    const account = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(impersonate.user)
    const asked: ReadonlyArray<readonly [Resource, string, string | undefined]> = [
      account === null ? [usersResource, impersonate.user, undefined] : [serviceAccountsResource, account[2] ?? "", account[1]],
      ...impersonate.groups.map((g) => [groupsResource, g, undefined] as const)
    ]
    for (const [resource, name, namespace] of asked) {
      const request: RequestAttributes = { kind: "resource", verb: "impersonate", group: "", resource: resource.plural, name, ...(namespace === undefined ? {} : { namespace }) }
      if (!this.decide(caller, request).allowed) {
        return { ok: false, response: forbiddenFor(caller.name, resource, { verb: "impersonate", name, ...(namespace === undefined ? {} : { namespace }) }) }
      }
    }
    const groups = impersonate.groups.length > 0 || account === null ? impersonate.groups : serviceAccountGroups(account[1] ?? "")
    return { ok: true, user: { name: impersonate.user, groups: [...groups, authenticatedGroup] } }
  }

  /**
   * The refusal of a write that would store `object` (a Role, ClusterRole, RoleBinding or
   * ClusterRoleBinding) for a user that would gain rights by it, as kube-apiserver's RBAC storage words it; undefined when allowed.
   */
  escalationRefusal(resource: Resource, user: UserInfo, object: KubeObject): ApiResponse | undefined {
    if (user.groups.includes(mastersGroup)) return undefined
    const meta = isJsonObject(object["metadata"]) ? object["metadata"] : {}
    const name = text(meta["name"])
    const namespace = resource.namespaced ? text(meta["namespace"]) : undefined
    const refuse = (why: string): ApiResponse => forbidden(resource, name, `${qualifiedResource(resource)} "${name}" is forbidden: ${why}`)
    const allowedTo = (verb: string, plural: string, target: string): boolean =>
      this.decide(user, { kind: "resource", verb, group: rbacGroup, resource: plural, name: target, ...(namespace === undefined ? {} : { namespace }) }).allowed
    let wanted: ReadonlyArray<PolicyRule>
    if (resource.plural === "roles" || resource.plural === "clusterroles") {
      if (allowedTo("escalate", resource.plural, name)) return undefined
      if (object["aggregationRule"] !== undefined && object["aggregationRule"] !== null) return refuse("must have cluster-admin privileges to use the aggregationRule")
      wanted = rulesOf(object)
    } else {
      const ref = isJsonObject(object["roleRef"]) ? object["roleRef"] : {}
      const refResource = ref["kind"] === "Role" ? rolesResource : clusterRolesResource
      const roleName = text(ref["name"])
      if (allowedTo("bind", refResource.plural, roleName)) return undefined
      const role = ref["kind"] === "Role" ? this.store.get("roles", namespace, roleName) : this.store.get("clusterroles", undefined, roleName)
      if (role === undefined) return notFound(refResource, roleName)
      wanted = rulesOf(role)
    }
    const problem = escalationProblem(user, this.rules(user, namespace), wanted)
    return problem === undefined ? undefined : refuse(problem)
  }

  /** Issues a token for a stored service account until `expiresAt` on the clock (its uid binds the token to this account). */
  issue(account: KubeObject, token: string, expiresAt: number): void {
    const meta = isJsonObject(account["metadata"]) ? account["metadata"] : {}
    this.issued.set(token, { namespace: text(meta["namespace"]), name: text(meta["name"]), uid: text(meta["uid"]), expiresAt })
  }

  /** The rules granted to the user in a namespace (cluster-wide ones only, when undefined). */
  rules(user: UserInfo, namespace: string | undefined): ReadonlyArray<PolicyRule> {
    return rulesFor(storedRbac(this.store), user, namespace).flatMap((s) => s.rules)
  }

  /** Whether RBAC lets the user do it, and why. */
  decide(user: UserInfo, request: RequestAttributes): { readonly allowed: boolean; readonly reason: string } {
    return rbacDecision(storedRbac(this.store), user, request)
  }

  /** The refusal for a REST call (401 for an unknown token, 403 with kube-apiserver's message), or undefined. */
  refusal(resource: Resource, request: ApiRequest, subresource: string | undefined = request.subresource): ApiResponse | undefined {
    const identity = this.identify(request.token, request.impersonate)
    if (!identity.ok) return identity.response
    const user = identity.user
    const namespace = resource.namespaced ? request.namespace : undefined
    const name = request.name ?? (request.verb === "list" || request.verb === "watch" ? selectedName(request.fieldSelector) : undefined)
    const attributes: RequestAttributes = {
      kind: "resource",
      verb: request.verb,
      group: resource.group,
      resource: resource.plural,
      ...(subresource === undefined ? {} : { subresource }),
      ...(name === undefined ? {} : { name }),
      ...(namespace === undefined ? {} : { namespace })
    }
    const asked = { verb: request.verb, ...(request.name === undefined ? {} : { name: request.name }), ...(request.namespace === undefined ? {} : { namespace: request.namespace }) }
    return this.decide(user, attributes).allowed ? undefined : forbiddenFor(user.name, resource, { ...asked, ...(subresource === undefined ? {} : { subresource }) })
  }
}
