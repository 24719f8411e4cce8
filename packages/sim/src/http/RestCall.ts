// Decoding one REST call: method, target, query and body become the simulator's ApiRequest, plus how
// the answer is to be presented (as a Table or not). Anything malformed becomes the Status the API
// server would send instead, naming every problem found.
import { parse as parseYaml } from "yaml"
import { type ApiRequest, type ApiResponse, type FieldValidation, type PropagationPolicy, type Resource, type Verb, statusBody } from "../Api.ts"
import { maxNestingDepth, tooDeeplyNested } from "../apiserver/validation/Nesting.ts"
import { jsonTextDepth, yamlTextDepth } from "./BodyNesting.ts"
import { type IncludeObject, acceptsTable, includeObjectOf, isYamlBody, patchTypeOf } from "./MediaType.ts"
import { queryDuration, readQuery } from "./QueryParams.ts"
import type { Writable } from "../Writable.ts"

/** The parts of an HTTP request a REST call is decoded from. */
export interface RestInput {
  readonly method: string
  readonly target: {
    readonly resource: Resource
    readonly version: string
    readonly namespace?: string
    readonly name?: string
    readonly subresource?: "status"
  }
  readonly query: URLSearchParams
  readonly authorization?: string
  /** The Impersonate-User header. */
  readonly impersonateUser?: string
  /** The Impersonate-Group headers, one value each. */
  readonly impersonateGroups?: ReadonlyArray<string>
  readonly contentType?: string
  readonly accept?: string
  readonly userAgent?: string
  readonly body: string
}

/** A decoded call: what to ask the simulator, and how to present its answer. */
export interface RestCall {
  readonly request: ApiRequest
  /** Present objects as a meta.k8s.io/v1 Table with rows carrying this much of each object. */
  readonly table?: IncludeObject
  /** For watches: end the stream after this many seconds. */
  readonly timeoutSeconds?: number
}

/** A decoded call, or the error answer to send instead. */
export type DecodedCall = { readonly ok: true; readonly call: RestCall } | { readonly ok: false; readonly response: ApiResponse }

const failure = (code: number, reason: string, message: string): DecodedCall => ({
  ok: false,
  response: { code, body: statusBody(code, reason, message) }
})

const verbOf = (method: string, target: RestInput["target"], watching: boolean): Verb | undefined => {
  const named = target.name !== undefined
  switch (method) {
    case "GET":
      return watching ? "watch" : named ? "get" : "list"
    case "POST":
      return named ? undefined : "create"
    case "PUT":
      return named ? "update" : undefined
    case "PATCH":
      return named ? "patch" : undefined
    case "DELETE":
      return named && target.subresource === undefined ? "delete" : undefined
    default:
      return undefined
  }
}

// Every query parameter a REST call reads, by the type apimachinery's conversion gives it.
const restParams = {
  watch: "boolean",
  dryRun: "strings",
  propagationPolicy: "string",
  fieldValidation: "string",
  force: "boolean",
  fieldManager: "string",
  limit: "int64",
  timeoutSeconds: "int64",
  includeObject: "string",
  fieldSelector: "string",
  labelSelector: "string",
  continue: "string",
  resourceVersion: "string"
} as const

const propagationPolicies: ReadonlyArray<PropagationPolicy> = ["Background", "Foreground", "Orphan"]
const fieldValidations: ReadonlyArray<FieldValidation> = ["Ignore", "Warn", "Strict"]

const parseBody = (text: string, yaml: boolean): { readonly value: unknown } | { readonly error: string } => {
  try {
    return { value: yaml ? parseYaml(text) : JSON.parse(text) }
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const bearerToken = (authorization: string | undefined): string | undefined => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")
  return match?.[1]
}

/** Decodes one REST call against a served resource. */
export const decodeRestCall = (input: RestInput): DecodedCall => {
  const { target } = input
  const { values: query, problems: unreadable } = readQuery(input.query, restParams)
  const verb = verbOf(input.method, target, query.watch === true)
  if (verb === undefined) {
    return failure(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`)
  }
  const problems: Array<string> = [...unreadable]
  // `timeout` bounds a short request (the server's request-deadline filter reads it): every call is
  // answered at once here, but a malformed one is refused as the real server refuses it.
  const timeout = input.query.get("timeout") ?? ""
  const deadline = timeout === "" ? undefined : queryDuration(timeout)
  if (deadline !== undefined && "error" in deadline) problems.push(`invalid timeout specified in the request URL - ${deadline.error}`)

  const needsBody = verb === "create" || verb === "update" || verb === "patch"
  let body: unknown = undefined
  if (input.body.trim() !== "") {
    const yaml = isYamlBody(input.contentType)
    if ((yaml ? yamlTextDepth : jsonTextDepth)(input.body, maxNestingDepth) > maxNestingDepth) return { ok: false, response: tooDeeplyNested() }
    const parsed = parseBody(input.body, yaml)
    if ("error" in parsed) problems.push(`the request body could not be decoded: ${parsed.error}`)
    else body = parsed.value
  } else if (needsBody) {
    problems.push("the request body is empty")
  }
  if (needsBody && body !== undefined && !isRecord(body) && !(verb === "patch" && Array.isArray(body))) {
    problems.push("the request body must be a JSON object")
  }

  const patchType = verb === "patch" ? patchTypeOf(input.contentType) : undefined
  if (verb === "patch" && patchType === undefined) {
    return failure(415, "UnsupportedMediaType", `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml`)
  }

  const options = verb === "delete" && isRecord(body) ? body : {}
  const dryRunValues = [...(query.dryRun ?? []), ...(Array.isArray(options["dryRun"]) ? options["dryRun"] : [])]
  for (const value of dryRunValues) {
    if (value !== "All") problems.push(`dryRun: unsupported value "${String(value)}", supported values: "All"`)
  }

  const policyText = query.propagationPolicy ?? (typeof options["propagationPolicy"] === "string" ? options["propagationPolicy"] : undefined)
  const propagationPolicy = propagationPolicies.find((p) => p === policyText)
  if (policyText !== undefined && propagationPolicy === undefined) {
    problems.push(`propagationPolicy: unsupported value "${policyText}", supported values: "Background", "Foreground", "Orphan"`)
  }

  const validationText = query.fieldValidation
  const fieldValidation = validationText === undefined || validationText === "" ? undefined : fieldValidations.find((v) => v === validationText)
  if (validationText !== undefined && validationText !== "" && fieldValidation === undefined) {
    problems.push(`fieldValidation: unsupported value "${validationText}", supported values: "Ignore", "Warn", "Strict"`)
  }

  const force = query.force
  const fieldManager = query.fieldManager
  // A negative limit lists everything, as the real server's storage reads it.
  const limit = query.limit === undefined || query.limit <= 0 ? undefined : query.limit
  const timeoutSeconds = query.timeoutSeconds

  const readsObjects = verb === "get" || verb === "list" || verb === "watch"
  const table = readsObjects && acceptsTable(input.accept) ? includeObjectOf(query.includeObject ?? null) : undefined
  if (readsObjects && acceptsTable(input.accept) && table === undefined) {
    problems.push(`includeObject: unsupported value "${query.includeObject}", supported values: "None", "Metadata", "Object"`)
  }

  if (input.impersonateUser === undefined && (input.impersonateGroups ?? []).length > 0) problems.push("requested groups to impersonate without impersonating a user")
  if (problems.length > 0) return failure(400, "BadRequest", problems.join("; "))

  // A watch on one named object is a watch on its collection narrowed to that name.
  const nameSelector = verb === "watch" && target.name !== undefined ? `metadata.name=${target.name}` : undefined
  const fieldSelector = [nameSelector, query.fieldSelector].filter((s) => s !== undefined && s !== "").join(",")
  const token = bearerToken(input.authorization)
  const { labelSelector, continue: continueToken, resourceVersion } = query

  // Built key by key in this order, only the keys that have a value: a spread per optional key costs
  // an object each, and every call is decoded here.
  const request: Writable<ApiRequest> = { verb, group: target.resource.group, version: target.version, resource: target.resource.plural }
  if (target.namespace !== undefined) request.namespace = target.namespace
  if (target.name !== undefined && verb !== "watch") request.name = target.name
  if (target.subresource !== undefined) request.subresource = target.subresource
  if (body !== undefined) request.body = body
  if (patchType !== undefined) request.patchType = patchType
  if (dryRunValues.length > 0) request.dryRun = true
  if (labelSelector !== undefined && labelSelector !== "") request.labelSelector = labelSelector
  if (fieldSelector !== "") request.fieldSelector = fieldSelector
  if (limit !== undefined) request.limit = limit
  if (continueToken !== undefined && continueToken !== "") request.continue = continueToken
  if (resourceVersion !== undefined && resourceVersion !== "") request.resourceVersion = resourceVersion
  if (propagationPolicy !== undefined) request.propagationPolicy = propagationPolicy
  if (fieldValidation !== undefined && needsBody) request.fieldValidation = fieldValidation
  if (token !== undefined) request.token = token
  if (input.impersonateUser !== undefined) request.impersonate = { user: input.impersonateUser, groups: input.impersonateGroups ?? [] }
  if (fieldManager !== undefined && fieldManager !== "" && needsBody) request.fieldManager = fieldManager
  if (force !== undefined && needsBody) request.force = force
  if (input.userAgent !== undefined && needsBody) request.userAgent = input.userAgent
  return {
    ok: true,
    call: {
      request,
      ...(table === undefined ? {} : { table }),
      ...(timeoutSeconds === undefined || timeoutSeconds === 0 ? {} : { timeoutSeconds })
    }
  }
}
