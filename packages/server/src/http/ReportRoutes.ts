// The report batch endpoint: a job's workload stores many metric values and log records in one request, in one
// transaction, all or nothing. Admission checks the report token and the body's byte limit (Api.ts); a retried
// batch under the same Idempotency-Key gets the first answer and stores nothing again (Idempotency.ts).
import { Effect, Result } from "effect"
import { appendReportBatch, isJobOf } from "../store/JobHistory.ts"
import { checkBatch } from "../wire/ReportBatch.ts"
import { refusalOf } from "../wire/ServiceProblem.ts"
import { ReportsGroup } from "./Api.ts"
import { jobNotFound } from "./JobRoutes.ts"
import { Caller, now, stored, transaction } from "./RequestServices.ts"
import { route } from "./Route.ts"

/** The service's own report endpoints. */
export const reportRoutes = [
  route(ReportsGroup, "send", {
    reports: true,
    // The job is not read: the batch's inserts check that it is the caller's (a batch arrives every few seconds from
    // every running job, and reading a job's row joins five tables).
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const { group } = yield* Caller
          const checked = checkBatch(params.id, body, yield* now)
          if (Result.isFailure(checked)) {
            // A job the caller cannot see is answered before what is wrong with the batch, as any request naming it.
            if (!(yield* stored(isJobOf(group, params.id)))) return yield* Effect.fail(jobNotFound(params.id))
            return yield* Effect.fail(refusalOf(checked.failure))
          }
          const found = yield* stored(appendReportBatch(group, params.id, checked.success.metrics, checked.success.logs))
          return found ? checked.success.answer : yield* Effect.fail(jobNotFound(params.id))
        })
      )
  })
]
