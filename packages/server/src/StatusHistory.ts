import type { JobStatus } from "@dispatch/jobs"
import type { Sql } from "./store/Database.ts"

/** Appends a status to a job's history, with the service's reason when it gave one. */
export const insertHistory = async (sql: Sql, id: number, status: JobStatus, at: string, reason?: string): Promise<void> => {
  await sql.query(`insert into job_status_history (job, status, changed_on, reason) values ($1, $2, $3, $4)`, [id, status, at, reason ?? null])
}
