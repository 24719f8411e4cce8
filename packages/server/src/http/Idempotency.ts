// A creation named by an Idempotency-Key runs at most once: the key, the request's fingerprint and the answer
// are written in the creation's own transaction, so once the creation is committed a retry gets its answer,
// even when the first answer never reached the client (the process was killed between commit and reply).
import { createHash } from "node:crypto"
import { Effect, Result, Schema } from "effect"
import type { SqlClient } from "effect/sql"
import { idempotencyKeys } from "../store/IdempotencyKeys.ts"
import { stored, transaction } from "./RequestServices.ts"

/** Who sends a keyed request and what it is: keys are scoped to the caller (group and principal). */
export interface KeyedRequest {
  readonly group: string
  readonly principal: string
  readonly key: string
  readonly method: string
  /** The request's path, without its query string. */
  readonly path: string
  /** The request body exactly as sent. */
  readonly body: string
}

/** An answer to remember: its status and JSON body. */
export interface KeyedAnswer {
  readonly status: number
  readonly body: unknown
}

/** A request with this key is still being answered (409); retry once it is done. */
export class IdempotencyKeyInUse extends Schema.TaggedError<IdempotencyKeyInUse>()("IdempotencyKeyInUse", {
  key: Schema.String
}) {
  override get message() {
    return `a request with Idempotency-Key ${JSON.stringify(this.key)} is still in progress; retry when it has been answered`
  }
  get status() {
    return 409 as const
  }
}

/** The key was already used, within 24 hours, for a different request (another body or endpoint) (422). */
export class IdempotencyKeyReused extends Schema.TaggedError<IdempotencyKeyReused>()("IdempotencyKeyReused", {
  key: Schema.String
}) {
  override get message() {
    return `Idempotency-Key ${JSON.stringify(this.key)} was used for a different request; a key names one request`
  }
  get status() {
    return 422 as const
  }
}

/** What a keyed request is: its method, path and body, hashed. */
export const requestFingerprint = (request: KeyedRequest): string =>
  createHash("sha256").update(`${request.method} ${request.path}\n`).update(request.body).digest("hex")

/** The service's keyed creations: each runs once per key. One per service (its API's layer), since it also holds the
 * keyed requests the service is answering right now. */
export class IdempotentAnswers {
  // PGlite runs one transaction at a time, so a second request under a key being answered would only queue behind
  // the first, where it must be told the key is in use.
  private readonly inProgress = new Set<string>()

  /** Runs a creating request once per key: a retry with the same request within 24 hours gets the first
   * successful answer; another request under the key is 422; one while the first is in progress is 409.
   * A refused request is not remembered, so its retry runs again. `now` is the service's ISO-8601 time. The
   * creation and its remembered answer are written in one transaction of the request's database. */
  readonly answerOnce = <E, R>(
    request: KeyedRequest,
    now: string,
    run: Effect.Effect<KeyedAnswer, E, R>
  ): Effect.Effect<Result.Result<KeyedAnswer, IdempotencyKeyInUse | IdempotencyKeyReused>, E, R | SqlClient.SqlClient> =>
    Effect.suspend(() => {
      const scope = JSON.stringify([request.group, request.principal, request.key])
      if (this.inProgress.has(scope)) return Effect.succeed(Result.fail(new IdempotencyKeyInUse({ key: request.key })))
      this.inProgress.add(scope)
      const fingerprint = requestFingerprint(request)
      const key = { group: request.group, principal: request.principal, key: request.key }
      const once = Effect.gen(function* () {
        const keys = yield* idempotencyKeys
        // Another process on the same PostgreSQL holding the key's lock is answering it right now.
        if (!(yield* stored(keys.lock(scope)))) return Result.fail(new IdempotencyKeyInUse({ key: request.key }))
        const first = yield* stored(keys.recent(key, now))
        if (first._tag === "Some") {
          return first.value.fingerprint === fingerprint
            ? Result.succeed({ status: first.value.status, body: JSON.parse(first.value.body) as unknown })
            : Result.fail(new IdempotencyKeyReused({ key: request.key }))
        }
        const answer = yield* run
        if (answer.status >= 200 && answer.status < 300) {
          yield* stored(keys.remember(key, { fingerprint, status: answer.status, body: JSON.stringify(answer.body) }, now))
        }
        return Result.succeed(answer)
      })
      return transaction(once).pipe(Effect.ensuring(Effect.sync(() => this.inProgress.delete(scope))))
    })
}
