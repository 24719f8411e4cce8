// The resourceVersion a client sends on get, list and watch, read as the real server reads it: "" and
// "0" mean "whatever is current"; anything else must be a decimal unsigned 64-bit integer, as Go's
// strconv.ParseUint(v, 10, 64) takes it (so `-1`, `0x10`, `1e3` and `+1` are refused, `007` is 7).
import type { ApiResponse } from "../../Api.ts"
import { badRequest } from "../StatusErrors.ts"
import { errorLine, invalidValue } from "../validation/FieldErrors.ts"

/** A parsed resourceVersion: a revision, or none ("" and "0"); or the answer refusing it. */
export type ResourceVersionParse =
  | { readonly ok: true; readonly revision: number | undefined }
  | { readonly ok: false; readonly response: ApiResponse }

const maxUint64 = 2n ** 64n - 1n

/**
 * Parses a client's resourceVersion. A malformed one gets the real server's message; the real server
 * answers it with 500 (its storage layer's error is passed through), the simulator with 400, since the
 * fault is the client's.
 */
export const parseResourceVersion = (text: string | undefined): ResourceVersionParse => {
  if (text === undefined || text === "" || text === "0") return { ok: true, revision: undefined }
  const problem = !/^[0-9]+$/.test(text) ? "invalid syntax" : BigInt(text) > maxUint64 ? "value out of range" : undefined
  if (problem === undefined) return { ok: true, revision: Number(text) }
  const detail = `strconv.ParseUint: parsing ${JSON.stringify(text)}: ${problem}`
  return { ok: false, response: badRequest(errorLine(invalidValue("resourceVersion", text, detail))) }
}
