// What one failed write says about the backend, read off its ClusterError alone (pure). It refines
// Start's mapping (StartFailure.definiteWriteFailure): forbidden is exactly Start's ErrReadOnly; transient
// is its ErrUnreachable plus a conflict with another writer (which Start refuses, ErrRejected, for the
// object at hand, but which says nothing lasting about the backend); the two refusals split the rest of
// its ErrRejected into "the cluster refuses this object" and "the namespace is not there".
import type { ClusterError } from "./ClusterError.ts"

/** The class of a failed write, and what a caller should do about it. */
export type WriteFailure =
  /** 429, 5xx, a timeout, a lost answer, a refused connection, a conflict with another writer: retry later. */
  | { readonly class: "transient" }
  /** RBAC's 403 or a 401: the caller may not write; do not retry until permissions change. */
  | { readonly class: "forbidden" }
  /** 400, 422, an admission webhook's denial, or a kind the API does not serve: the cluster refuses this
   * object, so writing it again as it is will not help. */
  | { readonly class: "refused" }
  /** 404 naming the namespace: it does not exist (or not yet). */
  | { readonly class: "missingNamespace"; readonly namespace: string }

// The API server's wording when the namespace of a create is missing: `namespaces "<name>" not found`.
const missingNamespace = /^namespaces "([^"]+)" not found$/

/** The namespace a 404 names as missing, if that is what it says. */
export const missingNamespaceOf = (error: ClusterError): string | undefined =>
  error.reason === "NotFound" ? missingNamespace.exec(error.status?.message ?? "")?.[1] : undefined

/** Classifies a failed write. */
export const classifyWriteFailure = (error: ClusterError): WriteFailure => {
  switch (error.reason) {
    case "Forbidden":
      return { class: "forbidden" }
    case "Invalid":
      return { class: "refused" }
    case "NotFound": {
      const namespace = missingNamespaceOf(error)
      // Any other 404 on a write is the API not serving the kind (Trainer's CRDs not installed).
      return namespace === undefined ? { class: "refused" } : { class: "missingNamespace", namespace }
    }
    case "Unreachable":
    case "Unanswered":
    case "ServerError":
    case "Conflict":
    case "AlreadyExists":
      return { class: "transient" }
  }
}
