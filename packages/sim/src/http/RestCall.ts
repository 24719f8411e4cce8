// Decoding one REST call: method, target, query and body become the simulator's ApiRequest, plus how
// the answer is to be presented (as a Table or not). Anything malformed becomes the Status the API
// server would send instead, naming every problem found.
import { parse as parseYaml } from "yaml"
import { type ApiRequest, type ApiResponse, type FieldValidation, type PropagationPolicy, type Resource, type Verb, statusBody } from "../Api.ts"
import { maxNestingDepth, tooDeeplyNested } from "../apiserver/validation/Nesting.ts"
import { jsonTextDepth, yamlTextDepth } from "./BodyNesting.ts"
import { type IncludeObject, acceptsTable, includeObjectOf, isYamlBody, patchTypeOf } from "./MediaType.ts"
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

const verbOf = (method: string, target: RestInput["target"], query: URLSearchParams): Verb | undefined => {
  const watching = query.get("watch") === "true" || query.get("watch") === "1"
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

const propagationPolicies: ReadonlyArray<PropagationPolicy> = ["Background", "Foreground", "Orphan"]
const fieldValidations: ReadonlyArray<FieldValidation> = ["Ignore", "Warn", "Strict"]

const parseBody = (text: string, yaml: boolean): { readonly value: unknown } | { readonly error: string } => {
  try {
    return { value: yaml ? parseYaml(text) : JSON.parse(text) }
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) }
  }
}

const maxInt64 = 2n ** 63n - 1n

// An integer query parameter read as the API server reads one (Go's strconv.ParseInt(v, 10, 64)):
// decimal only, so `0x10`, `1e3` and `1.0` are refused rather than read as numbers.
const integerParam = (name: string, text: string | null, problems: Array<string>): number | undefined => {
  if (text === null || text === "") return undefined
  const syntax = /^[+-]?[0-9]+$/.test(text)
  const value = syntax ? BigInt(text) : 0n
  if (syntax && value >= -maxInt64 - 1n && value <= maxInt64) {
    if (value >= 0n) return Number(value)
    problems.push(`${name}: "${text}" is not a non-negative integer`)
    return undefined
  }
  problems.push(`${name}: strconv.ParseInt: parsing ${JSON.stringify(text)}: ${syntax ? "value out of range" : "invalid syntax"}`)
  return undefined
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const bearerToken = (authorization: string | undefined): string | undefined => {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")
  return match?.[1]
}

/** Decodes one REST call against a served resource. */
export const decodeRestCall = (input: RestInput): DecodedCall => {
  const { target, query } = input
  const verb = verbOf(input.method, target, query)
  if (verb === undefined) {
    return failure(405, "MethodNotAllowed", `the server does not allow this method on the requested resource`)
  }
  const problems: Array<string> = []

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
  const dryRunValues = [...query.getAll("dryRun"), ...(Array.isArray(options["dryRun"]) ? options["dryRun"] : [])]
  for (const value of dryRunValues) {
    if (value !== "All") problems.push(`dryRun: unsupported value "${String(value)}", supported values: "All"`)
  }

  const policyText = query.get("propagationPolicy") ?? (typeof options["propagationPolicy"] === "string" ? options["propagationPolicy"] : undefined)
  const propagationPolicy = propagationPolicies.find((p) => p === policyText)
  if (policyText !== undefined && propagationPolicy === undefined) {
    problems.push(`propagationPolicy: unsupported value "${policyText}", supported values: "Background", "Foreground", "Orphan"`)
  }

  const validationText = query.get("fieldValidation")
  const fieldValidation = validationText === null || validationText === "" ? undefined : fieldValidations.find((v) => v === validationText)
  if (validationText !== null && validationText !== "" && fieldValidation === undefined) {
    problems.push(`fieldValidation: unsupported value "${validationText}", supported values: "Ignore", "Warn", "Strict"`)
  }

  // Go's strconv.ParseBool, as the real server reads `force`.
  const forceText = query.get("force")
  const force = forceText === null || forceText === "" ? undefined : ["1", "t", "T", "TRUE", "true", "True"].includes(forceText) ? true : ["0", "f", "F", "FALSE", "false", "False"].includes(forceText) ? false : undefined
  if (forceText !== null && forceText !== "" && force === undefined) problems.push(`force: strconv.ParseBool: parsing ${JSON.stringify(forceText)}: invalid syntax`)
  const fieldManager = query.get("fieldManager")

  const limit = integerParam("limit", query.get("limit"), problems)
  const timeoutSeconds = integerParam("timeoutSeconds", query.get("timeoutSeconds"), problems)

  const readsObjects = verb === "get" || verb === "list" || verb === "watch"
  const table = readsObjects && acceptsTable(input.accept) ? includeObjectOf(query.get("includeObject")) : undefined
  if (readsObjects && acceptsTable(input.accept) && table === undefined) {
    problems.push(`includeObject: unsupported value "${query.get("includeObject")}", supported values: "None", "Metadata", "Object"`)
  }

  if (problems.length > 0) return failure(400, "BadRequest", problems.join("; "))

  // A watch on one named object is a watch on its collection narrowed to that name.
  const nameSelector = verb === "watch" && target.name !== undefined ? `metadata.name=${target.name}` : undefined
  const fieldSelector = [nameSelector, query.get("fieldSelector") ?? undefined].filter((s) => s !== undefined && s !== "").join(",")
  const token = bearerToken(input.authorization)
  const labelSelector = query.get("labelSelector")
  const continueToken = query.get("continue")
  const resourceVersion = query.get("resourceVersion")

  // Built key by key in this order, only the keys that have a value: a spread per optional key costs
  // an object each, and every call is decoded here.
  const request: Writable<ApiRequest> = { verb, group: target.resource.group, version: target.version, resource: target.resource.plural }
  if (target.namespace !== undefined) request.namespace = target.namespace
  if (target.name !== undefined && verb !== "watch") request.name = target.name
  if (target.subresource !== undefined) request.subresource = target.subresource
  if (body !== undefined) request.body = body
  if (patchType !== undefined) request.patchType = patchType
  if (dryRunValues.length > 0) request.dryRun = true
  if (labelSelector !== null && labelSelector !== "") request.labelSelector = labelSelector
  if (fieldSelector !== "") request.fieldSelector = fieldSelector
  if (limit !== undefined && limit !== 0) request.limit = limit
  if (continueToken !== null && continueToken !== "") request.continue = continueToken
  if (resourceVersion !== null && resourceVersion !== "") request.resourceVersion = resourceVersion
  if (propagationPolicy !== undefined) request.propagationPolicy = propagationPolicy
  if (fieldValidation !== undefined && needsBody) request.fieldValidation = fieldValidation
  if (token !== undefined) request.token = token
  if (fieldManager !== null && fieldManager !== "" && needsBody) request.fieldManager = fieldManager
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
