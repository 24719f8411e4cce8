/** The simulator's HTTP face. */
export type { ServedSimulator, SimServer, SimServerOptions } from "./SimServer.ts"
export { SimServerError } from "./SimServerError.ts"
export { kubeconfigFor, kubeconfigEntryName, type KubeconfigOptions } from "./Kubeconfig.ts"
