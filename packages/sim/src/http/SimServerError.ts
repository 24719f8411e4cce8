/** Why the simulator's HTTP server could not start or stop. */
export class SimServerError extends Error {
  readonly _tag = "SimServerError"
  constructor(
    readonly reason: "listen" | "close",
    readonly detail: string
  ) {
    super(`simulator server could not ${reason}: ${detail}`)
  }
}
