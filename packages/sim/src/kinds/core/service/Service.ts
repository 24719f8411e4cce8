// core/v1 Service: a stable address for a set of pods. The simulator allocates its cluster IP and node
// ports; nothing routes traffic to it (no endpoints are kept).
import type { KubeObject } from "../../../Api.ts"
import { defineKind } from "../../Kind.ts"
import { ageColumn, column, field, nameColumn, records, text } from "../../Columns.ts"
import { labelMapText } from "../Selectors.ts"
import { checkService, prepareService, serviceDefaults, serviceFields } from "./ServiceRules.ts"
import { conditionMessage } from "../../MessageFields.ts"
import { serviceMessages } from "./ServiceMessages.ts"

// kubectl's EXTERNAL-IP: the external name, the load balancer's addresses (or <pending>), or <none>.
const externalIP = (o: KubeObject): string => {
  const type = field(o, "spec", "type")
  const external = field(o, "spec", "externalIPs")
  const given = Array.isArray(external) ? external.map(String) : []
  if (type === "ExternalName") return text(field(o, "spec", "externalName")) ?? "<none>"
  if (type === "LoadBalancer") {
    const ingress = records(field(o, "status", "loadBalancer", "ingress")).map((i) => text(i["ip"]) ?? text(i["hostname"]) ?? "")
    const all = [...ingress, ...given].filter((a) => a !== "")
    return all.length === 0 ? "<pending>" : all.join(",")
  }
  return given.length === 0 ? "<none>" : given.join(",")
}

// kubectl's PORT(S): `port/protocol`, or `port:nodePort/protocol`.
const ports = (o: KubeObject): string => {
  const all = records(field(o, "spec", "ports")).map((p) => `${String(p["port"])}${typeof p["nodePort"] === "number" ? `:${p["nodePort"]}` : ""}/${String(p["protocol"] ?? "TCP")}`)
  return all.length === 0 ? "<none>" : all.join(",")
}

/** Service. */
export const service = defineKind({
  group: "",
  versions: ["v1"],
  kind: "Service",
  listKind: "ServiceList",
  plural: "services",
  singular: "service",
  shortNames: ["svc"],
  namespaced: true,
  hasStatus: true,
  protobuf: { ...conditionMessage, ...serviceMessages },
  protobufMessage: "core.v1.Service",
  fields: serviceFields,
  strategy: { defaults: serviceDefaults, prepareForCreate: prepareService, validate: checkService },
  columns: [
    nameColumn,
    column("Type", "string", "The type of the service.", (o) => text(field(o, "spec", "type"))),
    column("Cluster-IP", "string", "The cluster IP of the service.", (o) => text(field(o, "spec", "clusterIP")) ?? "<none>"),
    column("External-IP", "string", "The external IPs of the service.", externalIP),
    column("Port(s)", "string", "The ports the service exposes.", ports),
    ageColumn,
    column("Selector", "string", "The labels of the pods the service routes to.", (o) => labelMapText(field(o, "spec", "selector")), 1)
  ],
  descriptions: {
    spec: "The desired behaviour of the Service.",
    "spec.type": "ClusterIP (the default), NodePort, LoadBalancer or ExternalName.",
    "spec.ports": "The ports the service exposes, each targeting a port of the selected pods.",
    "spec.selector": "Labels of the pods the service routes to.",
    "spec.clusterIP": "The service's address inside the cluster, allocated unless given ('None' for a headless service).",
    status: "The most recently observed status of the Service."
  }
})
