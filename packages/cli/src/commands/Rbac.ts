// `dispatch rbac`: the least-privilege RBAC for the adapter, derived from ClusterPermissions (the one
// declaration of its calls): a ServiceAccount, a Role and RoleBinding in the namespace, and a ClusterRole
// and ClusterRoleBinding for the cluster-scoped reads. Talks to no cluster.
import { rbacObjects, type RbacObject } from "@dispatch/effects"
import { dns1123LabelProblems, dns1123SubdomainProblems } from "@dispatch/kube"
import { stringify } from "yaml"
import { Commands } from "../Commands.ts"
import { endCommand } from "../CommandEnd.ts"
import { usage } from "../Failure.ts"
import { type ArgList, type CommandImpl, finish, readValues } from "../FlagReader.ts"
import { usageLine } from "../Usage.ts"

const parse = (list: ArgList) => {
  const options = readValues(Commands.rbac, list)
  const mode = options.value("mode")
  const namespace = options.value("namespace")
  const serviceAccount = options.value("service-account")
  const output = options.value("output")
  // Checked as the API server checks them, so that what is printed is applied without a refusal.
  if (options.given("namespace")) for (const p of dns1123LabelProblems(namespace)) options.problem(`--namespace ${JSON.stringify(namespace)}: ${p}`)
  if (options.given("service-account")) for (const p of dns1123SubdomainProblems(serviceAccount)) options.problem(`--service-account ${JSON.stringify(serviceAccount)}: ${p}`)
  return finish(options, () => ({ mode, namespace, serviceAccount, output }))
}

/** The objects as kubectl prints several: YAML documents separated by `---`, or one JSON v1 List. */
export const formatRbac = (objects: ReadonlyArray<RbacObject>, output: "yaml" | "json"): string =>
  output === "json"
    ? JSON.stringify({ apiVersion: "v1", kind: "List", items: objects, metadata: {} }, null, 2)
    : objects.map((o) => stringify(o).trimEnd()).join("\n---\n")

/** `dispatch rbac` as the CLI runs it. */
export const rbacCommand: CommandImpl = {
  check: (list) => {
    const parsed = parse(list)
    return "problems" in parsed ? parsed.problems : []
  },
  run: async (list, io) => {
    const parsed = parse(list)
    if ("problems" in parsed) return endCommand(io, "rbac", "text", usage(parsed.problems, usageLine(Commands.rbac)))
    const { mode, namespace, serviceAccount, output } = parsed.args
    io.out(formatRbac(rbacObjects({ mode, namespace, serviceAccount }), output))
    return endCommand(io, "rbac", output === "json" ? "json" : "text", undefined)
  }
}
