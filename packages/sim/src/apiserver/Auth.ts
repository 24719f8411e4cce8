// Optional bearer-token auth: a request without a known token is 401, a verb the token may not use is
// 403 with the real server's wording. Each token acts as a user named after its place in the table.
import type { ApiRequest, ApiResponse, Resource, Verb } from "../Api.ts"
import { qualifiedResource } from "./ResourceNames.ts"
import { forbidden, unauthorized } from "./StatusErrors.ts"

/** Bearer tokens and the verbs each may use ("*" for all). */
export interface AuthTokens {
  readonly tokens: Readonly<Record<string, ReadonlyArray<Verb> | "*">>
}

/** The user name a token acts as: `sim-user-<n>`, n its 1-based place in the table. */
export const userFor = (auth: AuthTokens, token: string): string => `sim-user-${Object.keys(auth.tokens).indexOf(token) + 1}`

/** The refusal for a request, or undefined when it may go ahead (always, without auth). */
export const authorize = (auth: AuthTokens | undefined, resource: Resource, request: ApiRequest): ApiResponse | undefined => {
  if (auth === undefined) return undefined
  const token = request.token
  const allowed = token === undefined || !Object.hasOwn(auth.tokens, token) ? undefined : auth.tokens[token]
  if (token === undefined || allowed === undefined) return unauthorized()
  if (allowed === "*" || allowed.includes(request.verb)) return undefined
  return forbiddenFor(userFor(auth, token), resource, request)
}

/** kube-apiserver's 403 for a user the authorizer refused the request. */
export const forbiddenFor = (
  user: string,
  resource: Resource,
  request: Pick<ApiRequest, "name" | "namespace"> & { readonly verb: string; readonly subresource?: string }
): ApiResponse => {
  const target = request.subresource === undefined ? resource.plural : `${resource.plural}/${request.subresource}`
  const scope = request.namespace === undefined || !resource.namespaced ? "at the cluster scope" : `in the namespace "${request.namespace}"`
  const subject = request.name === undefined ? qualifiedResource(resource) : `${qualifiedResource(resource)} "${request.name}"`
  return forbidden(resource, request.name, `${subject} is forbidden: User "${user}" cannot ${request.verb} resource "${target}" in API group "${resource.group}" ${scope}`)
}
