// @ts-check
// Mutation testing for Kubernetes' conventions (@dispatch/kube): `pnpm mutate:kube`.
import { mutationOptions } from "./stryker.config.mjs"

export default mutationOptions("kube", "packages/kube", ["packages/kube/src/**/*.ts", "!packages/kube/src/index.ts"])
