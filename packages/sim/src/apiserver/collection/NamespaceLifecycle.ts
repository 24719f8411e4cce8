// The namespace lifecycle controller: a namespace marked for deletion has its objects deleted, and
// goes itself once it is empty and no finalizer remains.
import { deleteObject } from "../verbs/Delete.ts"
import { finalizersOf, identityOf, isDeleting, type ServerContext } from "../store/ServerContext.ts"

/** Empties and removes terminating namespaces; true when it changed something. */
export const finishNamespaces = (context: ServerContext): boolean => {
  const before = context.store.currentRevision()
  for (const ns of context.store.list("namespaces")) {
    if (!isDeleting(ns)) continue
    const { name } = identityOf(ns)
    const namespaced = context.kinds.kinds.filter((r) => r.namespaced)
    for (const resource of namespaced) {
      for (const object of context.store.list(resource.plural, name)) {
        if (!isDeleting(object)) {
          deleteObject(context, resource, name, identityOf(object).name, { version: resource.versions[0] ?? "", dryRun: false })
        }
      }
    }
    const empty = namespaced.every((r) => context.store.list(r.plural, name).length === 0)
    if (empty && finalizersOf(ns).length === 0) context.store.remove("namespaces", undefined, name)
  }
  return context.store.currentRevision() !== before
}
