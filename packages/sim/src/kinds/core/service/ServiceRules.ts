// A core/v1 Service's schema, defaults, allocations and rules, as the API server applies them: type
// ClusterIP, session affinity None, each port TCP and targeting itself, traffic policies Cluster; a cluster
// IP from the service range (10.96.0.0/12) and node ports from 30000-32767, none taken twice; ports
// required (but for ExternalName and headless services), named when there are several, and in range.
import type { KubeObject } from "../../../Api.ts"
import { type FieldError, duplicate, invalidValue, notSupported, requiredValue } from "../../../apiserver/validation/FieldErrors.ts"
import type { FieldTree } from "../../../apiserver/validation/FieldTree.ts"
import { isJsonObject, withoutKey } from "../../../apiserver/store/JsonValue.ts"
import type { Allocator } from "../../Kind.ts"
import { withDefaults } from "../../Defaults.ts"
import { conditionMessage, kindMessageFields } from "../../MessageFields.ts"
import { serviceMessages } from "./ServiceMessages.ts"

type Json = Record<string, unknown>

const object = (value: unknown): Json => (isJsonObject(value) ? value : {})
const list = (value: unknown): ReadonlyArray<Json> => (Array.isArray(value) ? value.map(object) : [])

/** The fields of a Service; its ports merge by port and protocol, as its schema's list-map keys say. */
export const serviceFields: FieldTree = kindMessageFields({ ...conditionMessage, ...serviceMessages }, "core.v1.Service", {
  "core.v1.ServiceSpec.ports": { type: "map", keys: ["port", "protocol"], defaults: { protocol: "TCP" } }
})

/** The service types. */
export const serviceTypes: ReadonlyArray<string> = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]

const portDefaults = (port: Json): Json => {
  const out = withDefaults(port, { protocol: "TCP" }) as Json
  const target = out["targetPort"]
  return target === undefined || target === 0 || target === "" ? { ...out, targetPort: out["port"] } : out
}

/** A Service with core/v1's defaults filled in. */
export const serviceDefaults = (service: Json): Json => {
  const sent = object(service["spec"])
  const type = typeof sent["type"] === "string" ? sent["type"] : "ClusterIP"
  let spec = withDefaults(sent, { type, sessionAffinity: "None" }) as Json
  if (Array.isArray(spec["ports"])) spec = { ...spec, ports: spec["ports"].map((p) => (isJsonObject(p) ? portDefaults(p) : p)) }
  if (type !== "ExternalName") spec = withDefaults(spec, { internalTrafficPolicy: "Cluster" }) as Json
  if (type === "NodePort" || type === "LoadBalancer") spec = withDefaults(spec, { externalTrafficPolicy: "Cluster" }) as Json
  if (type === "LoadBalancer") spec = withDefaults(spec, { allocateLoadBalancerNodePorts: true }) as Json
  if (spec["sessionAffinity"] === "ClientIP") {
    const config = object(spec["sessionAffinityConfig"])
    spec = { ...spec, sessionAffinityConfig: { ...config, clientIP: withDefaults(object(config["clientIP"]), { timeoutSeconds: 10800 }) } }
  }
  return { ...service, spec }
}

// 10.96.0.0/12 but its network address, the `kubernetes` Service's 10.96.0.1 and its broadcast address.
const rangeStart = (10 << 24) | (96 << 16)
const rangeSize = 1 << 20
const ipText = (n: number): string => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join(".")

const draw = (allocator: Allocator, taken: ReadonlySet<string>, first: number, size: number, text: (n: number) => string): string | undefined => {
  // A random start, then the next free one, as the real allocator's offset scan finds it.
  const start = allocator.int(size)
  for (let i = 0; i < size; i++) {
    const candidate = text(first + ((start + i) % size))
    if (!taken.has(candidate)) return candidate
  }
  return undefined
}

const takenClusterIPs = (allocator: Allocator): ReadonlySet<string> => {
  const taken = new Set([ipText(rangeStart), ipText(rangeStart + 1), ipText(rangeStart + rangeSize - 1)])
  for (const s of allocator.stored("services")) taken.add(String(object(s["spec"])["clusterIP"] ?? ""))
  return taken
}

const takenNodePorts = (allocator: Allocator): Set<string> => {
  const taken = new Set<string>()
  for (const s of allocator.stored("services")) for (const p of list(object(s["spec"])["ports"])) if (typeof p["nodePort"] === "number") taken.add(String(p["nodePort"]))
  return taken
}

/** What the registry sets on a new Service: its cluster IP and IP families, its node ports, an empty load-balancer status. */
export const prepareService = (service: KubeObject, allocator: Allocator): KubeObject => {
  const spec = object(service["spec"])
  const type = spec["type"]
  let next: Json = { ...spec }
  if (type !== "ExternalName") {
    const asked = spec["clusterIP"]
    const clusterIP = typeof asked === "string" && asked !== "" ? asked : (draw(allocator, takenClusterIPs(allocator), rangeStart, rangeSize, ipText) ?? "")
    next = withDefaults({ ...next, clusterIP, clusterIPs: [clusterIP] }, { ipFamilies: ["IPv4"], ipFamilyPolicy: "SingleStack" }) as Json
  }
  if (type === "NodePort" || (type === "LoadBalancer" && spec["allocateLoadBalancerNodePorts"] !== false)) {
    const taken = takenNodePorts(allocator)
    next = {
      ...next,
      ports: list(spec["ports"]).map((p) => {
        if (typeof p["nodePort"] === "number" && p["nodePort"] !== 0) return p
        const port = Number(draw(allocator, taken, 30000, 2768, String) ?? 0)
        taken.add(String(port))
        return { ...p, nodePort: port }
      })
    }
  }
  return { ...withoutKey(service, "status"), spec: next, status: { loadBalancer: {} } }
}

const portErrors = (ports: ReadonlyArray<Json>): ReadonlyArray<FieldError> => {
  const errors: Array<FieldError> = []
  const seen = new Set<string>()
  const names = new Set<string>()
  ports.forEach((p, i) => {
    const at = `spec.ports[${i}]`
    const port = p["port"]
    if (typeof port !== "number") errors.push(requiredValue(`${at}.port`))
    else if (port < 1 || port > 65535) errors.push(invalidValue(`${at}.port`, port, "must be between 1 and 65535, inclusive"))
    if (ports.length > 1 && (typeof p["name"] !== "string" || p["name"] === "")) errors.push(requiredValue(`${at}.name`))
    if (typeof p["name"] === "string" && p["name"] !== "") {
      if (names.has(p["name"])) errors.push(duplicate(`${at}.name`, p["name"]))
      names.add(p["name"])
    }
    const protocol = p["protocol"]
    if (protocol !== undefined && protocol !== "TCP" && protocol !== "UDP" && protocol !== "SCTP") errors.push(notSupported(`${at}.protocol`, protocol, ["SCTP", "TCP", "UDP"]))
    const key = `${String(port)}/${String(protocol ?? "TCP")}`
    if (seen.has(key)) errors.push(duplicate(at, { port, protocol }))
    seen.add(key)
  })
  return errors
}

/** Every problem beyond the schema's types with a Service about to be stored. */
export const checkService = (service: Json): ReadonlyArray<FieldError> => {
  const spec = object(service["spec"])
  const type = spec["type"]
  if (typeof type === "string" && !serviceTypes.includes(type)) return [notSupported("spec.type", type, serviceTypes)]
  const ports = list(spec["ports"])
  const headless = spec["clusterIP"] === "None"
  const errors: Array<FieldError> = []
  if (type === "ExternalName") {
    if (typeof spec["externalName"] !== "string" || spec["externalName"] === "") errors.push(requiredValue("spec.externalName"))
  } else if (ports.length === 0 && !headless) errors.push(requiredValue("spec.ports"))
  return [...errors, ...portErrors(ports)]
}
