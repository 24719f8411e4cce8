import type { Result } from "effect"
import { decodeWire } from "./Decode.ts"
import type { Refusal } from "./Refusal.ts"
import { StartRequest } from "./Wire.ts"

/** Decodes a StartRequest from unknown input; a wrong shape is ErrInvalid naming every field, never a throw. */
export const decodeStartRequest = (input: unknown): Result.Result<StartRequest, Refusal> => decodeWire(StartRequest, input, (path) => (path === "" ? "request" : path))
