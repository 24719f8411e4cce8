import type { ControllerHost } from "../Api.ts"

/** Installs the simulator's Trainer and Kueue controllers and their admission webhooks. */
export const installControllers = (_host: ControllerHost, _options: unknown): void => {}
