// authentication.k8s.io/v1 TokenRequest, the serviceaccounts/token subresource (`kubectl create
// token`): a bearer token for a stored service account, which the simulator then authenticates as
// `system:serviceaccount:<namespace>:<name>` until it expires on the simulator's clock or the account goes.
import type { ApiResponse, KubeObject, Resource } from "../../Api.ts"
import { isJsonObject } from "../store/JsonValue.ts"
import { invalid, notFound } from "../StatusErrors.ts"
import { type FieldError, invalidValue } from "../validation/FieldErrors.ts"

/** A token's life when the request asks for none (kube-apiserver's default), and the shortest it may ask for. */
export const defaultExpirationSeconds = 3600
export const minExpirationSeconds = 600

/** The TokenRequest's spec, or every problem with it. */
export const tokenRequestSpec = (body: unknown): { readonly audiences: ReadonlyArray<string>; readonly expirationSeconds: number } | ReadonlyArray<FieldError> => {
  const spec = isJsonObject(body) && isJsonObject(body["spec"]) ? body["spec"] : {}
  const seconds = spec["expirationSeconds"] ?? defaultExpirationSeconds
  const problems: Array<FieldError> = []
  if (typeof seconds !== "number" || !Number.isInteger(seconds)) problems.push(invalidValue("spec.expirationSeconds", seconds, "must be an integer"))
  else if (seconds < minExpirationSeconds) problems.push(invalidValue("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"))
  else if (seconds > 2 ** 32) problems.push(invalidValue("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"))
  if (problems.length > 0) return problems
  const audiences = Array.isArray(spec["audiences"]) ? spec["audiences"].filter((a): a is string => typeof a === "string") : []
  return { audiences, expirationSeconds: seconds as number }
}

/**
 * The answer to a TokenRequest for `account` (undefined: not stored) in `namespace`: 201 with the
 * token `issue` hands out for it and its expiry, 404 for a missing account, 422 for a bad spec.
 */
export const answerTokenRequest = (
  serviceAccounts: Resource,
  namespace: string,
  name: string,
  account: KubeObject | undefined,
  body: unknown,
  now: number,
  issue: (account: KubeObject, expiresAt: number) => string
): ApiResponse => {
  if (account === undefined) return notFound(serviceAccounts, name)
  const spec = tokenRequestSpec(body)
  if (Array.isArray(spec)) return invalid({ ...serviceAccounts, group: "authentication.k8s.io", kind: "TokenRequest", plural: "tokenrequests" }, name, spec)
  const { audiences, expirationSeconds } = spec as { readonly audiences: ReadonlyArray<string>; readonly expirationSeconds: number }
  const expiresAt = now + expirationSeconds * 1000
  const token = issue(account, expiresAt)
  return {
    code: 201,
    body: {
      kind: "TokenRequest",
      apiVersion: "authentication.k8s.io/v1",
      metadata: { name, namespace, creationTimestamp: null },
      spec: { audiences, expirationSeconds, boundObjectRef: null },
      status: { token, expirationTimestamp: new Date(expiresAt).toISOString().replace(/\.\d{3}Z$/, "Z") }
    }
  }
}
