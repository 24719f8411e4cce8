// A job service for the report tests: its database at hand (for the report secret and what was stored), a job to
// report to, and its report token.
import { afterAll, beforeAll } from "vitest"
import type { JobServer } from "../../src/index.ts"
import { reportToken } from "../../src/dispatch/ReportToken.ts"
import { client, newJob, started, tokens, type Client } from "../Fixtures.ts"
import { openPglite, openPostgres, type TestDatabase } from "../TestDatabase.ts"
import { testPostgres, type TestPostgres } from "../TestPostgres.ts"

/** A running service, its database, a user's client, and how to make a reporting job. */
export interface ReportService {
  readonly server: JobServer
  readonly db: TestDatabase
  readonly alice: Client
  /** A new job and its report token. */
  readonly job: (tag: string) => Promise<{ readonly id: number; readonly token: string }>
  /** What the database stores of a job: its metric values in the order stored and its log records. */
  readonly storedOf: (job: number) => Promise<{ readonly metrics: ReadonlyArray<Record<string, any>>; readonly logs: ReadonlyArray<Record<string, any>> }>
}

/** Starts a service on the backend before the block's tests and stops it after them. */
export const useReportService = (backend: "pglite" | "postgres"): (() => ReportService) => {
  let service: ReportService | undefined
  let postgres: TestPostgres | undefined
  let counter = 0
  beforeAll(async () => {
    postgres = backend === "postgres" ? await testPostgres() : undefined
    const db = postgres === undefined ? await openPglite() : await openPostgres(postgres.url)
    const server = await started({ database: db.layer })
    const alice = client(server.url, tokens.alice)
    const [key] = await db.query<{ secret: string }>(`select secret from service_keys where name = 'report'`)
    const secret = key?.secret ?? ""
    service = {
      server,
      db,
      alice,
      job: async (tag) => {
        const { job } = await newJob(alice, `${tag}-${++counter}`)
        return { id: job.id, token: reportToken(secret, job.id) }
      },
      storedOf: async (job) => ({
        metrics: await db.query(
          `select name, step, value, special_value as "specialValue", (extract(epoch from recorded_on) * 1000)::float8 as "atMs" from job_metrics where job = $1 order by id`,
          [job]
        ),
        logs: await db.query(`select severity, logger_name as "loggerName", message, (extract(epoch from logged_on) * 1000)::float8 as "atMs" from job_logs where job = $1 order by id`, [job])
      })
    }
  }, 120_000)
  afterAll(async () => {
    await service?.server.close()
    await service?.db.close()
    await postgres?.release()
  })
  return () => {
    if (service === undefined) throw new Error("the service did not start")
    return service
  }
}

/** Posts a report batch to a job with a token, optionally under an Idempotency-Key; answers status and JSON. */
export const postBatch = async (url: string, job: number, token: string, body: unknown, key?: string) => {
  const response = await fetch(`${url}/api/v1/jobs/${job}/reports`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json", ...(key === undefined ? {} : { "idempotency-key": key }) },
    body: typeof body === "string" ? body : JSON.stringify(body)
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as any) }
}
