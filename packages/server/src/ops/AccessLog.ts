// One access-log line per answered request, in text or JSON, with the request's id.
/** How access-log lines are written. */
export type LogFormat = "text" | "json"

/** One access-log line. */
export interface AccessEntry {
  readonly time: string
  readonly requestId: string
  readonly method: string
  readonly path: string
  readonly route: string
  readonly status: number
  readonly ms: number
}

/** An access-log line in the format asked for. */
export const accessLine = (format: LogFormat, entry: AccessEntry): string =>
  format === "json"
    ? JSON.stringify(entry)
    : `${entry.time} ${entry.requestId} ${entry.method} ${entry.path} ${entry.status} ${entry.ms.toFixed(1)}ms`

const sentRequestId = /^[A-Za-z0-9._:-]{1,128}$/

/** The request id: the client's `X-Request-Id` when it is a sane token, else a new one. */
export const requestIdOf = (header: string | undefined, fresh: () => string): string =>
  header !== undefined && sentRequestId.test(header) ? header : fresh()
