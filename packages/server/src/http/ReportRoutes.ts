// The report batch endpoint: a job's workload stores many metric values and log records in one request, in one
// transaction, all or nothing. Admission checks the report token and the body's byte limit (Api.ts); a retried
// batch under the same Idempotency-Key gets the first answer and stores nothing again (Idempotency.ts).
import { Effect, Result } from "effect"
import { appendReportBatch } from "../store/JobHistory.ts"
import { checkBatch } from "../wire/ReportBatch.ts"
import { refusalOf } from "../wire/ServiceProblem.ts"
import { ReportsGroup } from "./Api.ts"
import { findJob } from "./JobRoutes.ts"
import { now, stored, transaction } from "./RequestServices.ts"
import { route } from "./Route.ts"

/** The service's own report endpoints. */
export const reportRoutes = [
  route(ReportsGroup, "send", {
    reports: true,
    handle: ({ params, body }) =>
      transaction(
        Effect.gen(function* () {
          const { job } = yield* findJob(params.id)
          const checked = checkBatch(job.id, body, yield* now)
          if (Result.isFailure(checked)) return yield* Effect.fail(refusalOf(checked.failure))
          yield* stored(appendReportBatch(checked.success.metrics, checked.success.logs))
          return checked.success.answer
        })
      )
  })
]
