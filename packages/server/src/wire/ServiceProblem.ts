import { Schema } from "effect"

/** What every refusal of the service carries: its kind, its message and the HTTP status it answers. */
export interface ServiceProblem {
  readonly _tag: string
  readonly message: string
  readonly status: number
}

/** Every problem one request had, the first deciding the HTTP status; never empty. */
export interface Refusal {
  readonly _tag: "Refusal"
  readonly problems: readonly [ServiceProblem, ...ReadonlyArray<ServiceProblem>]
}

/** A refusal with these problems. */
export const refusal = (first: ServiceProblem, ...rest: ReadonlyArray<ServiceProblem>): Refusal => ({ _tag: "Refusal", problems: [first, ...rest] })

/** The request carries no bearer token, or one no principal has (401). */
export class Unauthenticated extends Schema.TaggedError<Unauthenticated>()("Unauthenticated", {
  reason: Schema.String
}) {
  override get message() {
    return `authentication required: ${this.reason}`
  }
  get status() {
    return 401 as const
  }
}

/** The principal may read this group's resources but not change them (403). */
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", {
  principal: Schema.String,
  action: Schema.String
}) {
  override get message() {
    return `${this.principal} has read-only access and may not ${this.action}`
  }
  get status() {
    return 403 as const
  }
}

// Another group's resource answers exactly like a missing one, so ids do not reveal what other groups hold.
/** The resource does not exist, or belongs to another group (404). */
export class ResourceNotFound extends Schema.TaggedError<ResourceNotFound>()("ResourceNotFound", {
  resource: Schema.String,
  id: Schema.String
}) {
  override get message() {
    return `${this.resource} ${this.id} does not exist`
  }
  get status() {
    return 404 as const
  }
}

/** A resource with this unique value already exists (409). */
export class AlreadyExists extends Schema.TaggedError<AlreadyExists>()("AlreadyExists", {
  resource: Schema.String,
  field: Schema.String,
  value: Schema.String
}) {
  override get message() {
    return `a ${this.resource} with ${this.field} ${JSON.stringify(this.value)} already exists`
  }
  get status() {
    return 409 as const
  }
}

/** A part of the request (body, path or query parameter) has the wrong shape (400). */
export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", {
  part: Schema.Literals(["body", "path", "query"]),
  path: Schema.String,
  detail: Schema.String
}) {
  override get message() {
    return this.path === "" ? `${this.part}: ${this.detail}` : `${this.part} field ${this.path}: ${this.detail}`
  }
  get status() {
    return 400 as const
  }
}

/** The request body is not JSON at all (400). */
export class MalformedJson extends Schema.TaggedError<MalformedJson>()("MalformedJson", {
  reason: Schema.String
}) {
  override get message() {
    return `request body is not JSON: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

/** The request body is larger than the service accepts (413). */
export class BodyTooLarge extends Schema.TaggedError<BodyTooLarge>()("BodyTooLarge", {
  limit: Schema.Number
}) {
  override get message() {
    return `request body is larger than ${this.limit} bytes`
  }
  get status() {
    return 413 as const
  }
}

/** The request line's target is not a path the service can read (400). */
export class BadRequestTarget extends Schema.TaggedError<BadRequestTarget>()("BadRequestTarget", {
  target: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the request target ${JSON.stringify(this.target.slice(0, 200))} cannot be read: ${this.reason}`
  }
  get status() {
    return 400 as const
  }
}

/** The request is not valid HTTP; the connection is closed after this answer (400, 431 for oversized headers). */
export class MalformedHttp extends Schema.TaggedError<MalformedHttp>()("MalformedHttp", {
  code: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the request is not valid HTTP (${this.code}): ${this.reason}`
  }
  get status() {
    return this.code === "HPE_HEADER_OVERFLOW" ? 431 : 400
  }
}

/** The service failed to answer: a handler threw, or its answer could not be serialized (500). */
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", {
  reason: Schema.String
}) {
  override get message() {
    return `the service could not answer: ${this.reason}`
  }
  get status() {
    return 500 as const
  }
}

/** A string of the request body is longer than the service stores (413). */
export class FieldTooLarge extends Schema.TaggedError<FieldTooLarge>()("FieldTooLarge", {
  field: Schema.String,
  bytes: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `body field ${this.field} is ${this.bytes} bytes; at most ${this.limit} bytes are accepted`
  }
  get status() {
    return 413 as const
  }
}

/** An array or object of the request body holds more items than the service reads (400). */
export class TooManyItems extends Schema.TaggedError<TooManyItems>()("TooManyItems", {
  field: Schema.String,
  items: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `body field ${this.field} holds ${this.items} items; at most ${this.limit} are accepted`
  }
  get status() {
    return 400 as const
  }
}

/** No endpoint has this path (404). */
export class RouteNotFound extends Schema.TaggedError<RouteNotFound>()("RouteNotFound", {
  path: Schema.String
}) {
  override get message() {
    return `no endpoint at ${this.path}`
  }
  get status() {
    return 404 as const
  }
}

/** The path exists but not with this method (405). */
export class MethodNotAllowed extends Schema.TaggedError<MethodNotAllowed>()("MethodNotAllowed", {
  method: Schema.String,
  path: Schema.String,
  allowed: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.method} is not allowed on ${this.path}; allowed: ${this.allowed.join(", ")}`
  }
  get status() {
    return 405 as const
  }
}

/** Two writes raced for one unique value and this one lost (409). */
export class WriteConflict extends Schema.TaggedError<WriteConflict>()("WriteConflict", {
  reason: Schema.String
}) {
  override get message() {
    return `the write conflicts with another one: ${this.reason}`
  }
  get status() {
    return 409 as const
  }
}

/** A refusal with every problem of a non-empty list, as the job model reports them. */
export const refusalOf = (problems: ReadonlyArray<ServiceProblem>): Refusal => {
  const [first, ...rest] = problems
  return first === undefined ? refusal(new InvalidRequest({ part: "body", path: "", detail: "refused without a reason" })) : refusal(first, ...rest)
}

/** The job is not in a state the action applies to, e.g. cancelling a finished job (409). */
export class JobNotControllable extends Schema.TaggedError<JobNotControllable>()("JobNotControllable", {
  action: Schema.String,
  job: Schema.Number,
  jobStatus: Schema.String,
  dispatch: Schema.String
}) {
  override get message() {
    return `cannot ${this.action} job ${this.job}: it is ${this.jobStatus} (dispatch ${this.dispatch})`
  }
  get status() {
    return 409 as const
  }
}

/** The cluster refused or failed an action on the job's TrainJob: 409 when refused, 503 when it may work later. */
export class ClusterActionFailed extends Schema.TaggedError<ClusterActionFailed>()("ClusterActionFailed", {
  action: Schema.String,
  job: Schema.Number,
  error: Schema.String,
  reasons: Schema.Array(Schema.String)
}) {
  override get message() {
    return `${this.action} of job ${this.job} failed on the cluster (${this.error}): ${this.reasons.join("; ")}`
  }
  get status() {
    return this.error === "ErrRejected" || this.error === "ErrInvalid" ? 409 : 503
  }
}

/** The request body nests arrays and objects deeper than the service reads (400). */
export class JsonTooDeep extends Schema.TaggedError<JsonTooDeep>()("JsonTooDeep", {
  limit: Schema.Number
}) {
  override get message() {
    return `request body nests arrays and objects deeper than ${this.limit} levels`
  }
  get status() {
    return 400 as const
  }
}

/** The request body is not JSON by its Content-Type (415). */
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", {
  contentType: Schema.String
}) {
  override get message() {
    return `the request body must be application/json, not ${this.contentType}`
  }
  get status() {
    return 415 as const
  }
}

/** Sign-up is off: the service was started without `--signup` (403). */
export class SignupDisabled extends Schema.TaggedError<SignupDisabled>()("SignupDisabled", {}) {
  override get message() {
    return "this service does not register users: it was started without --signup; ask its operator for an account or a token"
  }
  get status() {
    return 403 as const
  }
}

/** A login with a wrong username or password; which of the two is not said (401). */
export class LoginFailed extends Schema.TaggedError<LoginFailed>()("LoginFailed", {
  username: Schema.String
}) {
  override get message() {
    return `login as ${JSON.stringify(this.username)} failed: wrong username or password`
  }
  get status() {
    return 401 as const
  }
}

/** Too many failed logins for this user or from this address lately; logins wait until the window passes (429). */
export class TooManyLoginAttempts extends Schema.TaggedError<TooManyLoginAttempts>()("TooManyLoginAttempts", {
  subject: Schema.String,
  failures: Schema.Number,
  windowSeconds: Schema.Number
}) {
  override get message() {
    return `${this.subject} had ${this.failures} failed logins within ${this.windowSeconds} s; try again later`
  }
  get status() {
    return 429 as const
  }
}

/** A body field must equal another (a password and its confirmation) (400). */
export class FieldsDiffer extends Schema.TaggedError<FieldsDiffer>()("FieldsDiffer", {
  field: Schema.String,
  other: Schema.String
}) {
  override get message() {
    return `${this.field} must equal ${this.other}`
  }
  get status() {
    return 400 as const
  }
}

/** A creation names a group the caller does not act for (403). */
export class NotYourGroup extends Schema.TaggedError<NotYourGroup>()("NotYourGroup", {
  principal: Schema.String,
  group: Schema.Number,
  yours: Schema.Number
}) {
  override get message() {
    return `${this.principal} acts for group ${this.yours} and may not create in group ${this.group}`
  }
  get status() {
    return 403 as const
  }
}

/** The service listens but is still starting (its database opening, migrations, its dispatcher): retry after
 * the Retry-After header's seconds (503). */
export class ServiceStarting extends Schema.TaggedError<ServiceStarting>()("ServiceStarting", {
  step: Schema.String,
  reason: Schema.String
}) {
  override get message() {
    return `the service is starting (${this.reason}); retry shortly, /readyz answers 200 once it serves`
  }
  get status() {
    return 503 as const
  }
}

/** One snapshot of a resource (an entrypoint's parameters, task graph, command and image) would take more bytes
 * of JSON than a snapshot may (413): no answer carrying it could stay within a page. */
export class SnapshotTooLarge extends Schema.TaggedError<SnapshotTooLarge>()("SnapshotTooLarge", {
  resource: Schema.String,
  bytes: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `the ${this.resource}'s snapshot would take ${this.bytes} bytes of JSON; at most ${this.limit} bytes are accepted`
  }
  get status() {
    return 413 as const
  }
}

/** The snapshots a resource keeps (the latest ones retention keeps, and every one a job names) would take more
 * bytes than a resource may store (413): delete jobs made from old snapshots, or make a new resource. */
export class ResourceTooLarge extends Schema.TaggedError<ResourceTooLarge>()("ResourceTooLarge", {
  resource: Schema.String,
  id: Schema.Number,
  bytes: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `${this.resource} ${this.id}'s stored snapshots would take ${this.bytes} bytes with this one; at most ${this.limit} bytes are stored for one ${this.resource}`
  }
  get status() {
    return 413 as const
  }
}

/** A resource already keeps as many snapshots as one may (413): its answer lists them all. */
export class TooManySnapshots extends Schema.TaggedError<TooManySnapshots>()("TooManySnapshots", {
  resource: Schema.String,
  id: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `${this.resource} ${this.id} already has ${this.limit} snapshots, as many as one ${this.resource} keeps`
  }
  get status() {
    return 413 as const
  }
}

/** A resource would name more resources than one may (413): an experiment's entrypoints, a job's artifacts; its
 * answer lists them all. */
export class TooManyReferences extends Schema.TaggedError<TooManyReferences>()("TooManyReferences", {
  resource: Schema.String,
  id: Schema.Number,
  field: Schema.String,
  count: Schema.Number,
  limit: Schema.Number
}) {
  override get message() {
    return `${this.resource} ${this.id} would have ${this.count} ${this.field}; at most ${this.limit} are kept for one ${this.resource}`
  }
  get status() {
    return 413 as const
  }
}
