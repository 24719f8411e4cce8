// The contract between the simulator's core and its two faces (in-process and HTTP). A request is the
// decoded form of one Kubernetes REST call; the core answers with an Outcome that says whether the call
// was answered, refused before anything was applied, or applied and never answered. Each face turns an
// Outcome into its own transport behaviour, so both honour the same fault plan.

/** A JSON object as the API server stores it. */
export type KubeObject = {
  apiVersion?: string
  kind?: string
  metadata?: Record<string, unknown>
  [key: string]: unknown
}

/** One served resource: where it lives in the API and what it is called. */
export interface Resource {
  readonly group: string
  readonly versions: ReadonlyArray<string>
  readonly kind: string
  readonly listKind: string
  readonly plural: string
  readonly singular: string
  readonly shortNames: ReadonlyArray<string>
  readonly namespaced: boolean
  readonly hasStatus: boolean
}

/** The API verbs the simulator understands (RBAC's names). */
export type Verb = "create" | "get" | "list" | "update" | "patch" | "delete" | "watch"

/** How a patch body is to be read, from its Content-Type. */
export type PatchType = "json" | "merge" | "strategic" | "apply"

/** Delete propagation, as in DeleteOptions. */
export type PropagationPolicy = "Background" | "Foreground" | "Orphan"

/** How a write treats fields the schema does not define (the fieldValidation query parameter). */
export type FieldValidation = "Ignore" | "Warn" | "Strict"

/** A user (and groups) a caller asks to act as, as `kubectl --as/--as-group` asks. */
export interface Impersonation {
  readonly user: string
  readonly groups: ReadonlyArray<string>
}

/** One decoded REST call. */
export interface ApiRequest {
  readonly verb: Verb
  readonly group: string
  readonly version: string
  readonly resource: string
  readonly namespace?: string
  readonly name?: string
  /** The status subresource (for writes), or pods' log (a get that reads the pod the log is served from). */
  readonly subresource?: "status" | "log"
  readonly body?: unknown
  readonly patchType?: PatchType
  readonly dryRun?: boolean
  readonly labelSelector?: string
  readonly fieldSelector?: string
  readonly limit?: number
  readonly continue?: string
  readonly resourceVersion?: string
  readonly propagationPolicy?: PropagationPolicy
  /** For create, update and patch: Strict refuses unknown fields, Warn (the default) and Ignore drop them. */
  readonly fieldValidation?: FieldValidation
  /** Bearer token presented, when the simulator has auth on. */
  readonly token?: string
  /** Whom the caller acts as (the Impersonate-User and Impersonate-Group headers), when it asks to. */
  readonly impersonate?: Impersonation
  /** For create, update and patch: who the write is recorded as in managedFields (required for apply). */
  readonly fieldManager?: string
  /** For apply: take the fields other managers own instead of failing with a conflict. */
  readonly force?: boolean
  /** The client's User-Agent: names the manager when no fieldManager is given. */
  readonly userAgent?: string
}

/** An answer: an HTTP status code and a JSON body (an object, a list or a metav1.Status). */
export interface ApiResponse {
  readonly code: number
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
}

/** What became of a request, after the fault plan had its say. */
export type Outcome =
  /** Answered, possibly after a delay in milliseconds. */
  | { readonly kind: "answered"; readonly response: ApiResponse; readonly delayMs?: number }
  /** Refused before anything was applied (connection refused). */
  | { readonly kind: "refused" }
  /** Applied as usual (or not, as the fault plan says), then the answer was lost: the caller times out, or, when
   * `cut`, sees its connection reset at once (a proxy or a server dying mid-request), equally without an answer. */
  | { readonly kind: "unanswered"; readonly cut?: boolean }

/** One line of a container's log and the clock time it was written. */
export interface LogLine {
  readonly time: number
  readonly text: string
}

/** A watch event, as the API server streams them. */
export interface WatchEvent {
  readonly type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"
  readonly object: unknown
}

/** Builds a metav1.Status failure body. */
export const statusBody = (
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>
): Record<string, unknown> => ({
  kind: "Status",
  apiVersion: "v1",
  metadata: {},
  status: "Failure",
  message,
  reason,
  ...(details === undefined ? {} : { details }),
  code
})

/** Direct access to stored objects for the simulator's own controllers and webhooks: no auth, no faults. */
export interface SystemClient {
  /** The simulator's clock, in milliseconds since the epoch. */
  now(): number
  /** The object, or undefined; the client given to controllers and webhooks hands out the stored object itself, deeply frozen. */
  get(resource: string, namespace: string | undefined, name: string): KubeObject | undefined
  /** The objects selected, in key order (frozen, as get's, for controllers and webhooks). */
  list(resource: string, namespace?: string, labelSelector?: string): ReadonlyArray<KubeObject>
  /**
   * Creates through validation and admission, as a client would; the answer says what happened. The client
   * given to controllers and webhooks keeps the object it is handed (frozen, whatever the answer), as its
   * writes do: they must not change it afterwards.
   */
  create(resource: string, object: KubeObject): ApiResponse
  /** Updates the main resource (status ignored); the object must carry its resourceVersion. */
  update(resource: string, object: KubeObject): ApiResponse
  /** Updates the status subresource only; the object must carry its resourceVersion. */
  updateStatus(resource: string, object: KubeObject): ApiResponse
  delete(resource: string, namespace: string | undefined, name: string, policy?: PropagationPolicy): ApiResponse
}

/** A mutating and validating admission webhook for one resource, run on create and update. */
export interface Admission {
  readonly name: string
  readonly resource: string
  /**
   * True when `admit` never edits the objects it is handed (it returns a new object to change one): it is
   * then handed the server's own instead of copies, which spares two deep copies per write.
   */
  readonly readOnly?: boolean
  /** Returns the object to store (possibly changed), or the reasons it is denied. */
  admit(
    operation: "create" | "update",
    object: KubeObject,
    old: KubeObject | undefined,
    system: SystemClient
  ): { readonly object: KubeObject } | { readonly denied: ReadonlyArray<string> }
}

/** A controller: brought up to date with the store each time the simulator's clock moves. */
export interface Controller {
  readonly name: string
  reconcile(system: SystemClient): void
  /**
   * Optional: the clock time before which, when its last pass wrote nothing and nothing has been written
   * to the store since, the controller has nothing to do (so the step skips it). Absent: it is
   * reconciled at every step.
   */
  readonly dueAt?: () => number
}

/** One write to the store, as controllers' informers see it (the object as stored, frozen). */
export interface ObjectChange {
  readonly resource: string
  readonly type: "ADDED" | "MODIFIED" | "DELETED"
  readonly object: KubeObject
  readonly previous?: KubeObject
}

/** Where controllers and webhooks plug into the simulator. */
export interface ControllerHost {
  addController(controller: Controller): void
  addAdmission(admission: Admission): void
  /** Calls `listener` on every write from now on (it must only take note: it runs inside the write). */
  onChange(listener: (change: ObjectChange) => void): void
  /** The sim clock, ms since epoch. */
  now(): number
  /** The client `controller` writes through, recorded under its upstream manager's name. */
  clientOf(controller: Controller): SystemClient
}
