// Kubernetes' own conventions, pure (no I/O, clock or randomness), shared by every dispatch package that
// meets Kubernetes objects: one definition of each, so render, the simulator and the CLI agree.
export * from "./AdmissionGates.ts"
export * from "./Conditions.ts"
export * from "./FlagDuration.ts"
export * from "./HumanDuration.ts"
export * from "./JsonPath.ts"
export * from "./NameRules.ts"
export * from "./TrainJobState.ts"
