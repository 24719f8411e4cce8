// Continue tokens for paged lists: the revision the first page was read at and the key of the last
// item returned, base64-encoded as the real server does.

/** What a continue token carries. */
export interface ContinueToken {
  readonly revision: number
  readonly afterKey: string
}

/** Encodes a continue token. */
export const encodeContinue = (token: ContinueToken): string =>
  Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv: token.revision, start: `${token.afterKey}\u0000` })).toString("base64url")

/** Decodes a continue token; undefined when it is not one of ours. */
export const decodeContinue = (text: string): ContinueToken | undefined => {
  try {
    const raw: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"))
    if (typeof raw !== "object" || raw === null) return undefined
    const { v, rv, start } = raw as Record<string, unknown>
    if (v !== "meta.k8s.io/v1" || typeof rv !== "number" || typeof start !== "string" || !start.endsWith("\u0000")) return undefined
    return { revision: rv, afterKey: start.slice(0, -1) }
  } catch {
    return undefined
  }
}
