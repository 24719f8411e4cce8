// The one declaration of the API calls the Cluster adapter makes, per operation and per mode: which verbs on
// which resources (and subresources). The RBAC `dispatch rbac` prints is derived from it, and a test holds
// the adapter's real HTTP requests to it, so the two cannot drift apart. Pure data and functions.
import { ClusterTrainingRuntimes, Pods, type ResourceKind, TrainingRuntimes, TrainJobs, Workloads } from "./ResourceKind.ts"

/** The Kubernetes verbs the adapter uses (no watch, no deletecollection: it never sends them). */
export const Verbs = ["get", "list", "create", "patch", "delete"] as const

/** A Kubernetes verb the adapter uses. */
export type Verb = (typeof Verbs)[number]

/** The modes a backend runs in. */
export const Modes = ["plain", "kueue"] as const

/** A backend's mode. */
export type Mode = (typeof Modes)[number]

/** The operations that talk to the cluster: Start, the lifecycle, the probe, the job service's status sync
 * and sweeper, log reading, and `dispatch runtimes`' listing. */
export const Operations = ["start", "find", "open", "hold", "release", "stop", "probe", "statusSync", "sweep", "logs", "runtimes"] as const

/** One operation that talks to the cluster. */
export type Operation = (typeof Operations)[number]

/** Verbs on one resource (or one of its subresources), in the given modes only when `modes` is set. */
export interface Grant {
  readonly kind: ResourceKind
  readonly subresource?: "status" | "log"
  readonly verbs: ReadonlyArray<Verb>
  readonly modes?: ReadonlyArray<Mode>
  /** A call the operation tries and does without when it is refused: declared, so the adapter may send it, but
   * not granted by the rules (least privilege). */
  readonly tried?: true
}

const grant = (kind: ResourceKind, verbs: ReadonlyArray<Verb>, more: Omit<Grant, "kind" | "verbs"> = {}): Grant => ({ kind, verbs, ...more })
const kueueOnly: ReadonlyArray<Mode> = ["kueue"]

// Start reads the runtime it names (either kind), creates (or adopts, patching its owner reference, or
// replaces, deleting, a stale one) the runtime copy, creates and reads back the TrainJob, and in Kueue mode
// lists the Workloads to see the TrainJob's appear with dispatch's gate.
const startGrants: ReadonlyArray<Grant> = [
  grant(ClusterTrainingRuntimes, ["get"]),
  grant(TrainingRuntimes, ["get", "create", "patch", "delete"]),
  grant(TrainJobs, ["get", "create"]),
  grant(Workloads, ["list"], { modes: kueueOnly })
]

// Find reads one job's TrainJob, or lists many jobs' by label, and in Kueue mode lists their Workloads.
const findGrants: ReadonlyArray<Grant> = [grant(TrainJobs, ["get", "list"]), grant(Workloads, ["list"], { modes: kueueOnly })]

// A transition reads the TrainJob; plain mode patches spec.suspend; Kueue mode lists the Workload, patches
// its admission-gate annotation and its admission check (the status subresource).
const transitionGrants: ReadonlyArray<Grant> = [
  grant(TrainJobs, ["get"]),
  grant(TrainJobs, ["patch"], { modes: ["plain"] }),
  grant(Workloads, ["list", "patch"], { modes: kueueOnly }),
  grant(Workloads, ["patch"], { subresource: "status", modes: kueueOnly })
]

// Stop reads and deletes the TrainJob and an ownerless runtime copy; what is left is read back.
const stopGrants: ReadonlyArray<Grant> = [grant(TrainJobs, ["get", "delete"]), grant(TrainingRuntimes, ["get", "delete"]), grant(Workloads, ["list"], { modes: kueueOnly })]

/** The declaration: every call each operation may make, per mode. */
export const ClusterPermissions: Readonly<Record<Operation, ReadonlyArray<Grant>>> = {
  start: startGrants,
  find: findGrants,
  open: transitionGrants,
  hold: transitionGrants,
  release: transitionGrants,
  stop: stopGrants,
  // The probe reads every configured runtime, runs a Start, and Stops it.
  probe: [grant(TrainingRuntimes, ["get"]), ...startGrants, ...stopGrants],
  // Status sync finds many jobs at once and stops those the service no longer wants.
  statusSync: [...findGrants, ...stopGrants],
  // The sweeper lists runtime copies by label and deletes those no TrainJob owns.
  sweep: [grant(TrainingRuntimes, ["list", "delete"])],
  // Log reading lists a TrainJob's pods and reads each one's log.
  logs: [grant(Pods, ["list"]), grant(Pods, ["get"], { subresource: "log" })],
  // `dispatch runtimes` lists the namespace's TrainingRuntimes and tries to list every ClusterTrainingRuntime; when
  // that is refused it reads the configured ones one by one, which `get` allows.
  runtimes: [grant(TrainingRuntimes, ["list"]), grant(ClusterTrainingRuntimes, ["get"]), grant(ClusterTrainingRuntimes, ["list"], { tried: true })]
}

/** What one request asks for, as kube-apiserver's authorizer sees it. */
export interface RequestAttributes {
  readonly verb: string
  readonly group: string
  readonly resource: string
  readonly subresource?: string | undefined
  /** Absent for a cluster-scoped resource, or a cluster-wide list. */
  readonly namespace?: string | undefined
}

/** The grants of one operation in one mode. */
export const grantsOf = (operation: Operation, mode: Mode): ReadonlyArray<Grant> =>
  ClusterPermissions[operation].filter((g) => g.modes === undefined || g.modes.includes(mode))

const resourceName = (g: Grant): string => (g.subresource === undefined ? g.kind.plural : `${g.kind.plural}/${g.subresource}`)

/** Whether `operation` in `mode` may make `request` in `namespace`: a grant names its verb, group, resource
 * and subresource, and it is namespaced and in `namespace` exactly when the resource is namespaced. */
export const permits = (operation: Operation, mode: Mode, namespace: string, request: RequestAttributes): boolean =>
  grantsOf(operation, mode).some(
    (g) =>
      g.kind.group === request.group &&
      g.kind.plural === request.resource &&
      g.subresource === (request.subresource === "" ? undefined : request.subresource) &&
      g.verbs.includes(request.verb as Verb) &&
      (g.kind.namespaced ? request.namespace === namespace : request.namespace === undefined)
  )

/** One rule of a Role or ClusterRole (rbac.authorization.k8s.io/v1 PolicyRule). */
export interface PolicyRule {
  readonly apiGroups: ReadonlyArray<string>
  readonly resources: ReadonlyArray<string>
  readonly verbs: ReadonlyArray<Verb>
}

/** The rules every operation in `mode` needs: the namespaced ones (a Role) and the cluster-scoped ones (a
 * ClusterRole). One rule per resource, its verbs the union over the operations, in the order of Verbs. */
export const rulesOf = (mode: Mode): { readonly namespaced: ReadonlyArray<PolicyRule>; readonly clusterScoped: ReadonlyArray<PolicyRule> } => {
  const byResource = new Map<string, { readonly group: string; readonly resource: string; readonly namespaced: boolean; readonly verbs: Set<Verb> }>()
  for (const operation of Operations) {
    for (const g of grantsOf(operation, mode)) {
      if (g.tried === true) continue
      const resource = resourceName(g)
      const key = `${g.kind.group}/${resource}`
      const entry = byResource.get(key) ?? { group: g.kind.group, resource, namespaced: g.kind.namespaced, verbs: new Set<Verb>() }
      for (const verb of g.verbs) entry.verbs.add(verb)
      byResource.set(key, entry)
    }
  }
  const entries = [...byResource.values()].sort((a, b) => (a.group === b.group ? a.resource.localeCompare(b.resource) : a.group.localeCompare(b.group)))
  const ruleOf = (e: (typeof entries)[number]): PolicyRule => ({ apiGroups: [e.group], resources: [e.resource], verbs: Verbs.filter((v) => e.verbs.has(v)) })
  return { namespaced: entries.filter((e) => e.namespaced).map(ruleOf), clusterScoped: entries.filter((e) => !e.namespaced).map(ruleOf) }
}

/** Whom the RBAC is for, and where. */
export interface RbacSubject {
  readonly mode: Mode
  readonly namespace: string
  readonly serviceAccount: string
}

/** The name of the Role, the ClusterRole and their bindings: the ServiceAccount's, so that two installs
 * (two namespaces, or two accounts) never share a ClusterRoleBinding. */
export const rbacName = (subject: RbacSubject): string => `dispatch-${subject.namespace}-${subject.serviceAccount}`

/** A Kubernetes object as the RBAC manifests print it. */
export type RbacObject = Readonly<Record<string, unknown>>

/** The least-privilege RBAC for the adapter in `mode`: the ServiceAccount, a Role with the namespaced rules
 * and its RoleBinding, and a ClusterRole with only the cluster-scoped rules (every mode reads
 * ClusterTrainingRuntimes) and its ClusterRoleBinding. */
export const rbacObjects = (subject: RbacSubject): ReadonlyArray<RbacObject> => {
  const { namespaced, clusterScoped } = rulesOf(subject.mode)
  const name = rbacName(subject)
  const labels = { "app.kubernetes.io/name": "dispatch", "app.kubernetes.io/component": "rbac" }
  const rbac = "rbac.authorization.k8s.io/v1"
  const account = { kind: "ServiceAccount", name: subject.serviceAccount, namespace: subject.namespace }
  const role = { kind: "Role", metadata: { name, namespace: subject.namespace, labels }, rules: namespaced }
  const roleBinding = { kind: "RoleBinding", metadata: { name, namespace: subject.namespace, labels }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name }, subjects: [account] }
  const clusterRole = { kind: "ClusterRole", metadata: { name, labels }, rules: clusterScoped }
  const clusterRoleBinding = { kind: "ClusterRoleBinding", metadata: { name, labels }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name }, subjects: [account] }
  return [
    { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: subject.serviceAccount, namespace: subject.namespace, labels } },
    { apiVersion: rbac, ...role },
    { apiVersion: rbac, ...roleBinding },
    { apiVersion: rbac, ...clusterRole },
    { apiVersion: rbac, ...clusterRoleBinding }
  ]
}
