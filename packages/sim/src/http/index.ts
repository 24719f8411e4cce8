/** The simulator's HTTP face. */
export { startSimServer, type ServedSimulator, type SimServer, type SimServerOptions } from "./SimServer.ts"
export { SimServerError } from "./SimServerError.ts"
export { kubeconfigFor, kubeconfigEntryName, type KubeconfigOptions } from "./Kubeconfig.ts"
export { printedTrainJobState, trainJobState } from "./Table.ts"
