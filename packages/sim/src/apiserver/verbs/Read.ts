// The read verbs: get one object, and list a collection with selectors, limit and continue tokens
// in a List of the resource's listKind carrying the store's revision.
import type { ApiResponse } from "../../Api.ts"
import type { Kind } from "../../kinds/Kind.ts"
import { decodeContinue, encodeContinue } from "../lists/Paging.ts"
import { apiVersionFor } from "../ResourceNames.ts"
import { isSelection, parseSelection, selects } from "../lists/Selection.ts"
import { present, type ServerContext } from "../store/ServerContext.ts"
import { badRequest, notFound } from "../StatusErrors.ts"
import { objectKey } from "../store/Store.ts"

/** Reads one object. */
export const get = (context: ServerContext, resource: Kind, namespace: string | undefined, name: string, version: string): ApiResponse => {
  const stored = context.store.get(resource.plural, resource.namespaced ? namespace : undefined, name)
  return stored === undefined ? notFound(resource, name) : { code: 200, body: present(resource, stored, version) }
}

/** How a list is asked for. */
export interface ListOptions {
  readonly version: string
  readonly namespace?: string | undefined
  readonly labelSelector?: string | undefined
  readonly fieldSelector?: string | undefined
  readonly limit?: number | undefined
  readonly continue?: string | undefined
}

/** Lists a collection, one page at a time when a limit is given. */
export const list = (context: ServerContext, resource: Kind, options: ListOptions): ApiResponse => {
  const selection = parseSelection({ ...options, namespace: resource.namespaced ? options.namespace : undefined, selectable: resource.selectableFields })
  if (!isSelection(selection)) return selection
  const token = options.continue === undefined || options.continue === "" ? undefined : decodeContinue(options.continue)
  if (options.continue !== undefined && options.continue !== "" && token === undefined) return badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)")
  if (options.limit !== undefined && (!Number.isInteger(options.limit) || options.limit < 0)) return badRequest(`invalid limit: ${options.limit}`)
  const revision = token?.revision ?? context.store.currentRevision()
  const filtered = selection.labels.length > 0 || selection.fields.length > 0
  const { items: page, more: moreFollow, rest } = context.store.page(resource.plural, {
    namespace: selection.namespace,
    afterKey: token?.afterKey,
    limit: options.limit === undefined || options.limit === 0 ? Number.POSITIVE_INFINITY : options.limit,
    select: filtered ? (o) => selects(selection, o) : undefined,
    countRest: !filtered
  })
  const remaining = rest
  const last = page[page.length - 1]
  const more = moreFollow && last !== undefined
  return {
    code: 200,
    body: {
      apiVersion: apiVersionFor(resource, options.version),
      kind: resource.listKind,
      metadata: {
        resourceVersion: String(revision),
        ...(more ? { continue: encodeContinue({ revision, afterKey: objectKey(last) }) } : {}),
        ...(more && !filtered ? { remainingItemCount: remaining } : {})
      },
      items: page.map((o) => present(resource, o, options.version))
    }
  }
}
