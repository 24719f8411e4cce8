// What the HTTP face asks of the simulator behind it: a Simulator is one, and so is a wrapper that
// forwards (some of) its calls. Declared here, so that the face depends on no simulator's make-up.
import type { ApiRequest, ApiResponse, Impersonation, KubeObject, LogLine, Outcome, WatchEvent } from "../Api.ts"
import type { SelfReviewKind } from "../apiserver/SelfReview.ts"
import type { KindRegistry } from "../kinds/KindRegistry.ts"

/** The part of a Simulator the HTTP face uses. */
export interface ServedSimulator {
  /** Serves one call; the answer's body is the caller's own. */
  handle(request: ApiRequest): Outcome
  /** Opens a watch; events arrive through `onEvent` until `stop()`. */
  watch(request: ApiRequest, onEvent: (event: WatchEvent) => void): { readonly outcome: Outcome; stop(): void }
  /** The sim clock, ms since epoch. */
  now(): number
  /** Moves the clock forward to `ms`. */
  advanceTo(ms: number): void
  /** As `handle`, but the answer may share the store's frozen objects (it is only serialised). */
  serve?(request: ApiRequest): Outcome
  /** The lines a container of a pod has written so far. */
  containerLog?(pod: KubeObject, container: string): ReadonlyArray<LogLine>
  /** Answers a self review from the caller's rights (as the user it impersonates, if it does). */
  selfReview?(kind: SelfReviewKind, token: string | undefined, body: unknown, impersonate?: Impersonation): ApiResponse
  /** Answers a TokenRequest (create serviceaccounts/token) for the service account the request names. */
  requestToken?(request: ApiRequest): ApiResponse
  /** The kinds served (absent: the built-in ones). */
  readonly kinds?: KindRegistry
}
