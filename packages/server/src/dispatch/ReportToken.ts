import { createHmac, timingSafeEqual } from "node:crypto"

// A job's token is derived from the service's secret and the job id, so every service process on one database
// makes the same token for a job (a retried Start must render the same TrainJob) and none is stored.

/** The env variable that holds the base URL of the job API (`.../api/v1`) for the workload to post to. */
export const serviceUrlKey = "DIOPTRA_SERVICE_URL"

/** The env variable that holds the job's report token. */
export const reportTokenKey = "DIOPTRA_REPORT_TOKEN"

const prefix = "djr1"

const signature = (secret: string, job: number): Buffer => createHmac("sha256", Buffer.from(secret, "hex")).update(`job:${job}`).digest()

/** The bearer token a job's workload posts its logs and metrics with: `djr1.<job id>.<hmac>`. */
export const reportToken = (secret: string, job: number): string => `${prefix}.${job}.${signature(secret, job).toString("hex")}`

const shape = /^djr1\.([1-9][0-9]{0,15})\.([0-9a-f]{64})$/

/** True when a bearer token has the shape of a report token (so it is judged as one, not as a user token). */
export const isReportToken = (token: string): boolean => token.startsWith(`${prefix}.`)

/** The job a report token is good for, or undefined when it was not made with this secret. */
export const reportTokenJob = (secret: string, token: string): number | undefined => {
  const match = shape.exec(token)
  if (match === null) return undefined
  const job = Number(match[1])
  return timingSafeEqual(signature(secret, job), Buffer.from(match[2] ?? "", "hex")) ? job : undefined
}
