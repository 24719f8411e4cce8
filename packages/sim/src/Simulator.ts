// The simulated API server's core: auth, then the fault plan, then the API server's verbs over the
// store; a clock that only moves when told, running the namespace lifecycle, the garbage collector
// and every registered controller at each step of at most one second.
import {
  type Admission,
  type ApiRequest,
  type ApiResponse,
  type Controller,
  type Impersonation,
  type ControllerHost,
  type KubeObject,
  type ObjectChange,
  type Outcome,
  type SystemClient,
  type WatchEvent
} from "./Api.ts"
import { type AuthTokens, authorize } from "./apiserver/Auth.ts"
import { type SelfReviewKind, selfReview } from "./apiserver/SelfReview.ts"
import { RbacAuth, type RbacOptions, rbacGroup } from "./apiserver/rbac/RbacAuth.ts"
import { mastersGroup } from "./apiserver/rbac/RbacRules.ts"
import { rbacSelfReview } from "./apiserver/rbac/RbacReview.ts"
import { answerTokenRequest } from "./apiserver/rbac/TokenRequest.ts"
import type { ContainerRuntime } from "./controllers/kubelet/ContainerRuntime.ts"
import { installControllers } from "./controllers/Install.ts"
import { clusterRoleAggregation } from "./controllers/rbac/ClusterRoleAggregation.ts"
import type { LogLine } from "./controllers/kubelet/SyntheticLogs.ts"
import type { ControllerOptions } from "./controllers/Options.ts"
import { type FaultAction, type FaultRule, FaultPlan } from "./Faults.ts"
import { collectGarbage } from "./apiserver/collection/GarbageCollector.ts"
import { GarbageQueue } from "./apiserver/collection/GarbageQueue.ts"
import { isJsonObject } from "./apiserver/store/JsonValue.ts"
import { finishNamespaces } from "./apiserver/collection/NamespaceLifecycle.ts"
import { failLostContainers } from "./controllers/kubelet/LostContainers.ts"
import { SeededRandom, freshSeed } from "./Random.ts"
import { builtinKinds, rbacKinds } from "./kinds/Builtin.ts"
import type { Kind } from "./kinds/Kind.ts"
import { KindRegistry } from "./kinds/KindRegistry.ts"
import { isSelection, parseSelection } from "./apiserver/lists/Selection.ts"
import { identityOf, type ServerContext } from "./apiserver/store/ServerContext.ts"
import { expired, injected, pathNotFound } from "./apiserver/StatusErrors.ts"
import { parseResourceVersion } from "./apiserver/store/ResourceVersion.ts"
import { Store } from "./apiserver/store/Store.ts"
import type { StoreJournal } from "./apiserver/store/StoreJournal.ts"
import { answerHandedOut, systemClient, targetNamespace } from "./apiserver/verbs/SystemAccess.ts"
import { serveVerb } from "./apiserver/verbs/Verbs.ts"
import { controllerManager } from "./apiserver/managed/FieldManagers.ts"
import { openWatch } from "./apiserver/lists/Watch.ts"

/** How a simulator starts. */
export interface SimulatorOptions {
  /** Sim clock start, ms since epoch (default 2026-01-01T00:00:00Z). */
  readonly startTime?: number
  /** Makes uids and generated names reproducible; without it they differ from one simulator to the next. */
  readonly seed?: number
  /** Seeded at start, through validation and admission (namespace "default" always exists). */
  readonly objects?: ReadonlyArray<KubeObject>
  /** Bearer tokens and the verbs each may use; absent = no auth. */
  readonly auth?: AuthTokens
  /**
   * Authorizes with RBAC, as kube-apiserver does: serves RBAC's kinds (unless `kinds`
   * says otherwise), starts with the `cluster-admin` ClusterRole bound to system:masters, and takes its
   * users from bearer tokens (the default user, a cluster admin, without one). Replaces `auth`.
   */
  readonly rbac?: RbacOptions
  readonly faults?: ReadonlyArray<FaultRule>
  /** Trainer and Kueue settings; Trainer's webhook and controller are installed unless told otherwise. */
  readonly controllers?: ControllerOptions
  /**
   * Keeps the store and the clock in the journal's directory: when it holds a state, the simulator
   * resumes it (its objects, resourceVersions and clock; `startTime` is ignored) instead of starting empty.
   */
  readonly journal?: StoreJournal
  /**
   * The kinds served (default: the built-in ones, `builtinKinds`). The controllers installed work on
   * the kinds they know, so leaving out one a controller writes leaves its writes refused.
   */
  readonly kinds?: ReadonlyArray<Kind>
}

/** 2026-01-01T00:00:00Z, the default start of the sim clock. */
export const defaultStartTime = Date.UTC(2026, 0, 1)

/** The longest step the clock takes before controllers run again. */
export const maxStepMs = 1000

/** A seed object the simulator refused, with the answer it got. */
export interface RejectedSeed {
  readonly object: KubeObject
  readonly response: ApiResponse
}

/** A simulated Kubernetes API server with its garbage collector and pluggable controllers. */
export class Simulator implements ControllerHost {
  private clock: number
  private faultPlan: FaultPlan
  private readonly auth: AuthTokens | undefined
  /** The simulator's authentication and RBAC, when it authorizes with RBAC. */
  readonly rbac: RbacAuth | undefined
  private readonly store = new Store()
  private readonly garbage: GarbageQueue
  /** The kinds this simulator serves. */
  readonly kinds: KindRegistry
  private readonly controllerList: Array<Controller> = []
  private readonly admissionList: Array<Admission> = []
  private readonly context: ServerContext
  private settledRevision = -1
  // The store revision each controller's last pass saw and left unchanged (-1 after a pass that wrote).
  private readonly reconciledRevision = new Map<Controller, number>()
  private readonly containers: ContainerRuntime
  private readonly controllerClients = new Map<Controller, SystemClient>()
  /** Seed objects that were refused (the simulator starts without them). */
  readonly rejectedSeeds: ReadonlyArray<RejectedSeed>
  /** The seed of this simulator's uids and generated names: the one given, or the one it drew. */
  readonly uidSeed: number
  /** Whether this simulator resumed the objects and clock its journal's directory held. */
  readonly resumed: boolean
  private readonly journal: StoreJournal | undefined

  constructor(options: SimulatorOptions = {}) {
    this.kinds = new KindRegistry(options.kinds ?? (options.rbac === undefined ? builtinKinds : [...builtinKinds, ...rbacKinds]))
    this.garbage = new GarbageQueue(this.store, this.kinds)
    options.journal?.checkServed((plural) => this.kinds.byResource(plural) !== undefined)
    const restored = options.journal?.restored
    this.journal = options.journal
    this.resumed = restored !== undefined
    this.clock = restored?.clock ?? options.startTime ?? defaultStartTime
    this.faultPlan = new FaultPlan(options.faults ?? [])
    this.auth = options.auth
    this.rbac = options.rbac === undefined ? undefined : new RbacAuth(this.store, options.rbac, () => this.clock)
    this.uidSeed = options.seed ?? freshSeed()
    this.context = {
      store: this.store,
      kinds: this.kinds,
      now: () => this.clock,
      // A resumed simulator with a seed must not hand out the uids its first run did.
      random: new SeededRandom(restored === undefined ? this.uidSeed : (this.uidSeed ^ Math.imul(restored.revision, 0x9e3779b1)) >>> 0),
      admissions: () => this.admissionList,
      system: () => this.snapshots
    }
    this.system = systemClient(this.context, "copy")
    this.snapshots = systemClient(this.context, "snapshot")
    if (restored === undefined) {
      options.journal?.attach(this.store, () => this.clock)
      this.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } })
      if (this.rbac !== undefined) this.bootstrapRbac()
    }
    this.containers = installControllers(this, options.controllers)
    if (this.rbac !== undefined) this.addController(clusterRoleAggregation)
    if (restored !== undefined) {
      // After the controllers, so that their change feeds hear of every object they must track.
      this.store.restore(restored.revision, restored.objects)
      options.journal?.attach(this.store, () => this.clock)
      const exec = options.controllers?.workloads?.exec
      if (exec !== undefined && exec !== false) failLostContainers(this.system, this.clock)
    }
    this.rejectedSeeds = (options.objects ?? []).flatMap((object) => this.seed(object))
  }

  // kube-apiserver's bootstrap policy, as much of it as a simulator needs: cluster-admin for system:masters.
  private bootstrapRbac(): void {
    const group = rbacGroup
    const labels = { "kubernetes.io/bootstrapping": "rbac-defaults" }
    this.system.create("clusterroles", {
      apiVersion: `${group}/v1`,
      kind: "ClusterRole",
      metadata: { name: "cluster-admin", labels },
      rules: [
        { verbs: ["*"], apiGroups: ["*"], resources: ["*"] },
        { verbs: ["*"], nonResourceURLs: ["*"] }
      ]
    })
    this.system.create("clusterrolebindings", {
      apiVersion: `${group}/v1`,
      kind: "ClusterRoleBinding",
      metadata: { name: "cluster-admin", labels },
      roleRef: { apiGroup: group, kind: "ClusterRole", name: "cluster-admin" },
      subjects: [{ apiGroup: group, kind: "Group", name: mastersGroup }]
    })
  }

  /** Answers a self review (`kubectl auth can-i`) from RBAC when on, else from the caller's token's rights. */
  selfReview(kind: SelfReviewKind, token: string | undefined, body: unknown, impersonate?: Impersonation): ApiResponse {
    return this.rbac === undefined ? selfReview(this.auth, kind, token, body) : rbacSelfReview(this.rbac, kind, token, body, impersonate)
  }

  /** Serves one call (every verb but watch): auth, then the fault plan, then the verb. The answer's body is
   * the caller's own copy. */
  handle(request: ApiRequest): Outcome {
    const outcome = this.serve(request)
    return outcome.kind === "answered" ? { ...outcome, response: answerHandedOut(outcome.response) } : outcome
  }

  /**
   * Serves one call as `handle` does, but the answer's body shares the store's frozen objects: for a face
   * that only serialises it (the HTTP face), which then skips a deep copy per answer.
   */
  serve(request: ApiRequest): Outcome {
    const resource = this.resolve(request)
    if (resource === undefined) return { kind: "answered", response: pathNotFound() }
    const refusal = this.refusal(resource, request) ?? this.escalation(resource, request)
    if (refusal !== undefined) return { kind: "answered", response: refusal }
    const name = request.name ?? (request.verb === "create" ? identityOf(request.body).name || undefined : undefined)
    return this.withFault(this.faultPlan.decide({ verb: request.verb, resource: resource.plural, name }), () => serveVerb(this.context, resource, request))
  }

  /**
   * Answers a TokenRequest (create serviceaccounts/token, the request naming the account): with RBAC
   * on, a token the simulator then authenticates as that service account; without, 404, as there is no
   * service account to authenticate.
   */
  requestToken(request: ApiRequest): ApiResponse {
    const serviceAccounts = this.kinds.byResource("serviceaccounts")
    if (this.rbac === undefined || serviceAccounts === undefined) return pathNotFound()
    const rbac = this.rbac
    const refusal = this.refusal(serviceAccounts, { ...request, verb: "create" }, "token")
    if (refusal !== undefined) return refusal
    const namespace = request.namespace ?? "default"
    const name = request.name ?? ""
    return answerTokenRequest(serviceAccounts, namespace, name, this.store.get("serviceaccounts", namespace, name), request.body, this.clock, (account, expiresAt) => {
      const token = `sim-sa.${this.context.random.pick("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", 43)}`
      rbac.issue(account, token, expiresAt)
      return token
    })
  }

  // RBAC's escalation check on a write of an RBAC object: the object the write would store, found by
  // the same write made as a dry run, must grant nothing the caller does not hold.
  private escalation(resource: Kind, request: ApiRequest): ApiResponse | undefined {
    if (this.rbac === undefined || resource.group !== rbacGroup || !(request.verb === "create" || request.verb === "update" || request.verb === "patch")) return undefined
    const identity = this.rbac.identify(request.token, request.impersonate)
    if (!identity.ok || identity.user.groups.includes(mastersGroup)) return undefined
    const trial = serveVerb(this.context, resource, { ...request, dryRun: true })
    if (trial.code >= 300 || !isJsonObject(trial.body)) return trial
    return this.rbac.escalationRefusal(resource, identity.user, trial.body)
  }

  /** Why the caller may not make this call (RBAC's answer when on, else the token table's), or undefined. */
  refusal(resource: Kind, request: ApiRequest, subresource?: string): ApiResponse | undefined {
    return this.rbac === undefined ? authorize(this.auth, resource, request) : this.rbac.refusal(resource, request, subresource ?? request.subresource)
  }

  /**
   * Opens a watch; events arrive through `onEvent` (after this returns) until `stop()`. A watch that
   * cannot resume from its resourceVersion is answered 200 and gets one ERROR event (Status 410
   * Expired), after which it sends nothing more.
   */
  watch(request: ApiRequest, onEvent: (event: WatchEvent) => void): { readonly outcome: Outcome; stop(): void } {
    const none = { stop: () => {} }
    const resource = this.resolve(request)
    if (resource === undefined) return { outcome: { kind: "answered", response: pathNotFound() }, ...none }
    const refusal = this.refusal(resource, request)
    if (refusal !== undefined) return { outcome: { kind: "answered", response: refusal }, ...none }
    const action = this.faultPlan.decide({ verb: "watch", resource: resource.plural, name: request.name })
    if (action?.type === "refuse") return { outcome: { kind: "refused" }, ...none }
    if (action?.type === "status") return { outcome: { kind: "answered", response: injected(action.code, action.message, action.retryAfterSeconds) }, ...none }
    if (action?.type === "drop") return { outcome: { kind: "unanswered" }, ...none }
    const selection = parseSelection({ ...request, namespace: resource.namespaced ? request.namespace : undefined, selectable: resource.selectableFields })
    if (!isSelection(selection)) return { outcome: { kind: "answered", response: selection }, ...none }
    const rv = request.resourceVersion
    const parsedVersion = parseResourceVersion(rv)
    if (!parsedVersion.ok) return { outcome: { kind: "answered", response: parsedVersion.response }, ...none }
    const start = parsedVersion.revision === undefined ? ({ current: true } as const) : { after: parsedVersion.revision }
    const response: ApiResponse = { code: 200, body: null }
    const outcome: Outcome = action?.type === "delay" ? { kind: "answered", response, delayMs: action.ms } : { kind: "answered", response }
    const watch = openWatch(this.context, resource, selection, request.version, start, onEvent)
    if (watch === undefined) {
      // The real server accepts the watch and then ends it with one ERROR event carrying 410 Expired.
      let stopped = false
      const status = expired(`too old resource version: ${String(rv)} (${this.store.currentRevision()})`).body
      queueMicrotask(() => {
        if (!stopped) onEvent({ type: "ERROR", object: status })
      })
      return { outcome, stop: () => void (stopped = true) }
    }
    return { outcome, stop: () => watch.stop() }
  }

  /** The sim clock, ms since epoch. */
  now(): number {
    return this.clock
  }

  /** Moves the clock forward by `ms`, in steps of at most one second. */
  advance(ms: number): void {
    this.advanceTo(this.clock + ms)
  }

  /** Moves the clock forward to `ms` (never backwards), in steps of at most one second. */
  advanceTo(ms: number): void {
    while (this.clock < ms) {
      this.clock = Math.min(ms, this.clock + maxStepMs)
      this.step()
    }
  }

  /** The lines `container` of `pod` has written so far: a synthetic log, or with `exec` its process's output. */
  containerLog(pod: KubeObject, container: string): ReadonlyArray<LogLine> {
    return this.containers.log(pod, container, this.clock)
  }

  /** Stops every container process (with `exec`) and waits until none is left, then closes the journal; the store stays readable. */
  close(): Promise<void> {
    return this.containers.close().finally(() => this.journal?.close())
  }

  /** Replaces the fault plan (its call counts start again). */
  setFaults(rules: ReadonlyArray<FaultRule>): void {
    this.faultPlan = new FaultPlan(rules)
  }

  /** Direct access for the simulator's users: no auth, no faults, copies handed out. */
  readonly system: SystemClient
  // The controllers' and webhooks' access: the same, but reads hand out the store's frozen objects.
  private readonly snapshots: SystemClient

  /** Adds a controller, reconciled at every clock step (or, if it says when it is due, when due or after a write). */
  addController(c: Controller): void {
    this.controllerList.push(c)
  }

  /** Calls `listener` on every write to the store, for controllers that track what changed. */
  onChange(listener: (change: ObjectChange) => void): void {
    this.store.subscribe(listener)
  }

  /** Adds an admission webhook, called on every create and update of its resource. */
  addAdmission(a: Admission): void {
    this.admissionList.push(a)
  }

  private step(): void {
    // The namespace lifecycle and the collector depend on the store alone, not on time: with no write
    // since they last settled there is nothing for them to do, and the collector visits only what the
    // writes since then marked (this keeps steps cheap with many objects).
    if (this.store.currentRevision() !== this.settledRevision || this.garbage.hasPending()) {
      finishNamespaces(this.context)
      collectGarbage(this.context, this.garbage)
      this.settledRevision = this.store.currentRevision()
    }
    for (const c of this.controllerList) {
      const idle = this.reconciledRevision.get(c) === this.store.currentRevision() && c.dueAt !== undefined && this.clock < c.dueAt()
      if (idle) continue
      const before = this.store.currentRevision()
      c.reconcile(this.clientOf(c))
      // A controller that wrote looks again at the next step, as a requeue would: its writes may have
      // made more work for itself.
      this.reconciledRevision.set(c, this.store.currentRevision() === before ? before : -1)
    }
  }

  // Each controller writes as the manager its upstream counterpart writes as, so managedFields say who set what.
  clientOf(c: Controller): SystemClient {
    let client = this.controllerClients.get(c)
    if (client === undefined) {
      client = systemClient(this.context, "snapshot", controllerManager(c.name))
      this.controllerClients.set(c, client)
    }
    return client
  }

  private resolve(request: ApiRequest): Kind | undefined {
    const resource = this.kinds.byResource(request.resource)
    return resource !== undefined && resource.group === request.group && resource.versions.includes(request.version) ? resource : undefined
  }

  private withFault(action: FaultAction | undefined, apply: () => ApiResponse): Outcome {
    if (action === undefined) return { kind: "answered", response: apply() }
    switch (action.type) {
      case "refuse":
        return { kind: "refused" }
      case "status":
        return { kind: "answered", response: injected(action.code, action.message, action.retryAfterSeconds) }
      case "drop":
        apply()
        return { kind: "unanswered" }
      case "delay":
        return { kind: "answered", response: apply(), delayMs: action.ms }
    }
  }

  // Seeds one object, creating its namespace first when needed.
  private seed(object: KubeObject): ReadonlyArray<RejectedSeed> {
    const resource = typeof object.kind === "string" ? this.kinds.byKindName(object.kind) : undefined
    if (resource === undefined) return [{ object, response: pathNotFound() }]
    const namespace = targetNamespace(resource, object)
    if (namespace !== undefined && this.store.get("namespaces", undefined, namespace) === undefined) {
      this.system.create("namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } })
    }
    const response = this.system.create(resource.plural, isJsonObject(object.metadata) ? object : { ...object, metadata: {} })
    return response.code === 201 ? [] : [{ object, response }]
  }
}
