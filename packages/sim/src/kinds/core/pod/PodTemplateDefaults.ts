// core/v1's defaults for a pod spec, as the API server fills them into a workload's pod template (a
// Deployment's): the pod's restart and DNS policies, grace period, scheduler and security context; each
// container's termination message, pull policy, port protocols and probe timings; volumes' file modes.
// Only what upstream's defaulting sets, and only where the field has no value of its own.
import { isJsonObject } from "../../../apiserver/store/JsonValue.ts"
import { withDefaults } from "../../Defaults.ts"

type Json = Record<string, unknown>

const object = (value: unknown): Json => (isJsonObject(value) ? value : {})
const each = (value: unknown, fill: (item: Json) => Json): unknown => (Array.isArray(value) ? value.map((item) => (isJsonObject(item) ? fill(item) : item)) : value)
const when = (value: Json, key: string, fill: (part: Json) => Json): Json => (isJsonObject(value[key]) ? { ...value, [key]: fill(value[key]) } : value)

/** The pull policy an image gets when none is given: Always for a `latest` (or untagged, undigested) image, else IfNotPresent. */
export const defaultPullPolicy = (image: unknown): string => {
  if (typeof image !== "string") return "IfNotPresent"
  if (image.includes("@")) return "IfNotPresent"
  const last = image.slice(image.lastIndexOf("/") + 1)
  const colon = last.lastIndexOf(":")
  return colon === -1 || last.slice(colon + 1) === "latest" ? "Always" : "IfNotPresent"
}

const httpGet = (action: Json): Json => withDefaults(action, { path: "/", scheme: "HTTP" }) as Json

const handler = (part: Json): Json => when(part, "httpGet", httpGet)

const probe = (part: Json): Json => handler(withDefaults(part, { timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 }) as Json)

const envVar = (item: Json): Json =>
  when(item, "valueFrom", (from) =>
    when(
      when(from, "fieldRef", (ref) => withDefaults(ref, { apiVersion: "v1" }) as Json),
      "resourceFieldRef",
      (ref) => withDefaults(ref, { divisor: "0" }) as Json
    )
  )

const container = (hostNetwork: boolean) => (item: Json): Json => {
  let out = withDefaults(item, {
    resources: {},
    terminationMessagePath: "/dev/termination-log",
    terminationMessagePolicy: "File",
    imagePullPolicy: defaultPullPolicy(item["image"])
  }) as Json
  out = { ...out, ports: each(out["ports"], (port) => withDefaults(port, { protocol: "TCP", ...(hostNetwork ? { hostPort: port["containerPort"] } : {}) }) as Json) }
  if (out["ports"] === undefined) delete out["ports"]
  if (out["env"] !== undefined) out = { ...out, env: each(out["env"], envVar) }
  for (const key of ["livenessProbe", "readinessProbe", "startupProbe"]) out = when(out, key, probe)
  return when(out, "lifecycle", (lifecycle) => when(when(lifecycle, "postStart", handler), "preStop", handler))
}

// The volume sources whose files get a mode (0644) when they name none.
const moded = ["secret", "configMap", "downwardAPI", "projected"]
const sourceKeys = new Set(["hostPath", "emptyDir", "gcePersistentDisk", "awsElasticBlockStore", "gitRepo", "secret", "nfs", "iscsi", "glusterfs", "persistentVolumeClaim", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "downwardAPI", "fc", "azureFile", "configMap", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "projected", "portworxVolume", "scaleIO", "storageos", "csi", "ephemeral", "image"])

const volume = (item: Json): Json => {
  // A volume that names no source is an emptyDir.
  let out = Object.keys(item).some((key) => sourceKeys.has(key)) ? item : { ...item, emptyDir: {} }
  for (const key of moded) out = when(out, key, (source) => withDefaults(source, { defaultMode: 420 }) as Json)
  out = when(out, "hostPath", (source) => withDefaults(source, { type: "" }) as Json)
  return when(out, "projected", (source) => ({
    ...source,
    sources: each(source["sources"], (projection) => when(projection, "serviceAccountToken", (token) => withDefaults(token, { expirationSeconds: 3600 }) as Json))
  }))
}

/** A pod spec with core/v1's defaults filled in. */
export const podSpecDefaults = (spec: Json): Json => {
  const hostNetwork = spec["hostNetwork"] === true
  const out = withDefaults(spec, {
    restartPolicy: "Always",
    terminationGracePeriodSeconds: 30,
    dnsPolicy: "ClusterFirst",
    securityContext: {},
    schedulerName: "default-scheduler"
  }) as Json
  for (const key of ["containers", "initContainers"]) if (out[key] !== undefined) out[key] = each(out[key], container(hostNetwork))
  if (out["volumes"] !== undefined) out["volumes"] = each(out["volumes"], volume)
  // The deprecated serviceAccount mirrors serviceAccountName, as the v1 conversion writes it.
  if (typeof out["serviceAccountName"] === "string" && out["serviceAccountName"] !== "" && out["serviceAccount"] === undefined) out["serviceAccount"] = out["serviceAccountName"]
  return out
}

/** A pod template with its spec's defaults filled in. */
export const podTemplateDefaults = (template: unknown): unknown => (isJsonObject(template) ? { ...template, spec: podSpecDefaults(object(template["spec"])) } : template)
