// Starting a simulator's HTTP face: it routes to the kinds the simulator serves, or, for a wrapper that
// does not say, to the built-in ones; a wrapper that forwards no container logs gets the synthetic ones.
import { syntheticLog } from "./controllers/kubelet/SyntheticLogs.ts"
import { builtinKinds } from "./kinds/Builtin.ts"
import { KindRegistry } from "./kinds/KindRegistry.ts"
import { type SimServer, type SimServerOptions, startHttpFace } from "./http/SimServer.ts"

/** Starts a simulator server on 127.0.0.1. Rejects with a SimServerError if it cannot listen. */
export const startSimServer = (options: SimServerOptions): Promise<SimServer> =>
  startHttpFace({ ...options, kinds: options.simulator.kinds ?? new KindRegistry(builtinKinds), fallbackLog: syntheticLog })
