// apps/v1 Deployment in the simulator: stored and read back whole, refused for a field its type does not
// declare (strict create, warned create, server-side apply), defaulted as kube-apiserver defaults it, and
// validated.
import { describe, expect, it } from "vitest"
import type { KubeObject } from "../src/Api.ts"
import { at, bareSimulator, call, created, invalidCauses } from "./SimFixture.ts"

const deployment = (name: string, spec: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: "apps/v1",
  kind: "Deployment",
  metadata: { name, labels: { app: name } },
  spec: {
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        serviceAccountName: "dispatch",
        securityContext: { runAsNonRoot: true, runAsUser: 10001 },
        containers: [
          {
            name: "serve",
            image: "ghcr.io/example/dispatch:1.0.0",
            args: ["serve", "--data-dir", "/data"],
            ports: [{ name: "http", containerPort: 8080 }],
            env: [{ name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: "db", key: "url" } } }],
            readinessProbe: { httpGet: { path: "/readyz", port: "http" } },
            livenessProbe: { httpGet: { path: "/healthz", port: 8080 }, periodSeconds: 20 },
            resources: { requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } },
            securityContext: { readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } },
            volumeMounts: [{ name: "data", mountPath: "/data" }]
          }
        ],
        volumes: [{ name: "data", persistentVolumeClaim: { claimName: "data" } }, { name: "tmp" }, { name: "config", configMap: { name: "c" } }]
      }
    },
    ...spec
  }
})

describe("Deployment", () => {
  it("is stored with every field it was sent and read back as stored", () => {
    const sim = bareSimulator()
    const stored = created(sim, "deployments", deployment("web", { replicas: 2, minReadySeconds: 5, paused: false }))
    const read = call(sim, { verb: "get", ...at("deployments"), name: "web" })
    expect(read.code).toBe(200)
    expect(read.body).toEqual(stored)
    const spec = (read.body as KubeObject)["spec"] as Record<string, any>
    expect(spec.replicas).toBe(2)
    expect(spec.minReadySeconds).toBe(5)
    const container = spec.template.spec.containers[0]
    expect(container.env).toEqual([{ name: "DATABASE_URL", valueFrom: { secretKeyRef: { name: "db", key: "url" } } }])
    expect(container.securityContext).toEqual({ readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: { drop: ["ALL"] } })
    expect(container.resources).toEqual({ requests: { cpu: "100m", memory: "128Mi" }, limits: { memory: "512Mi" } })
    expect(spec.template.spec.securityContext).toEqual({ runAsNonRoot: true, runAsUser: 10001 })
  })

  it("gets kube-apiserver's defaults: the deployment's, the pod spec's and each container's", () => {
    const sim = bareSimulator()
    const spec = created(sim, "deployments", deployment("web"))["spec"] as Record<string, any>
    expect(spec.replicas).toBe(1)
    expect(spec.revisionHistoryLimit).toBe(10)
    expect(spec.progressDeadlineSeconds).toBe(600)
    expect(spec.strategy).toEqual({ type: "RollingUpdate", rollingUpdate: { maxUnavailable: "25%", maxSurge: "25%" } })
    const pod = spec.template.spec
    expect(pod).toMatchObject({ restartPolicy: "Always", terminationGracePeriodSeconds: 30, dnsPolicy: "ClusterFirst", schedulerName: "default-scheduler", serviceAccount: "dispatch" })
    const container = pod.containers[0]
    expect(container).toMatchObject({ terminationMessagePath: "/dev/termination-log", terminationMessagePolicy: "File", imagePullPolicy: "IfNotPresent" })
    expect(container.ports).toEqual([{ name: "http", containerPort: 8080, protocol: "TCP" }])
    expect(container.readinessProbe).toEqual({ httpGet: { path: "/readyz", port: "http", scheme: "HTTP" }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 })
    expect(container.livenessProbe.periodSeconds).toBe(20)
    expect(pod.volumes).toEqual([
      { name: "data", persistentVolumeClaim: { claimName: "data" } },
      { name: "tmp", emptyDir: {} },
      { name: "config", configMap: { name: "c", defaultMode: 420 } }
    ])
    // A Recreate strategy gets no rolling update; a latest image is always pulled.
    const recreate = created(sim, "deployments", { ...deployment("re", { strategy: { type: "Recreate" } }) })["spec"] as Record<string, any>
    expect(recreate.strategy).toEqual({ type: "Recreate" })
    // No controller runs it: its status stays empty.
    expect(call(sim, { verb: "get", ...at("deployments"), name: "re" }).body).toMatchObject({ status: {} })
  })

  it("refuses a misspelt field under Strict with kube-apiserver's message, warns under Warn, drops it under Ignore", () => {
    const sim = bareSimulator()
    const body = deployment("typo", { replicass: 2 })
    const strict = call(sim, { verb: "create", ...at("deployments"), body, fieldValidation: "Strict" })
    expect(strict.code).toBe(400)
    expect(strict.body).toMatchObject({
      reason: "BadRequest",
      message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.replicass"'
    })
    const nested = deployment("typo")
    ;(((nested["spec"] as any).template.spec.containers[0]) as Record<string, unknown>)["imagee"] = "x"
    expect(call(sim, { verb: "create", ...at("deployments"), body: nested, fieldValidation: "Strict" }).body).toMatchObject({
      message: 'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "spec.template.spec.containers[0].imagee"'
    })
    const warned = call(sim, { verb: "create", ...at("deployments"), body, fieldValidation: "Warn" })
    expect(warned.code).toBe(201)
    expect(warned.headers?.["Warning"]).toBe('299 - "unknown field \\"spec.replicass\\""')
    expect((warned.body as any).spec.replicass).toBeUndefined()
    const ignored = call(sim, { verb: "create", ...at("deployments"), body: deployment("quiet", { replicass: 2 }), fieldValidation: "Ignore" })
    expect(ignored.code).toBe(201)
    expect(ignored.headers?.["Warning"]).toBeUndefined()
  })

  it("refuses a server-side apply naming an undeclared field as the typed conversion does, whatever the fieldValidation", () => {
    const sim = bareSimulator()
    const body = { ...deployment("ssa", { replicass: 2 }), metadata: { name: "ssa", namespace: "default" } }
    for (const fieldValidation of ["Strict", "Warn", "Ignore"] as const) {
      const answer = call(sim, { verb: "patch", ...at("deployments"), name: "ssa", patchType: "apply", fieldManager: "kubectl", body, fieldValidation })
      expect(answer.code).toBe(500)
      expect(answer.body).toEqual({
        kind: "Status",
        apiVersion: "v1",
        metadata: {},
        status: "Failure",
        message: "failed to create typed patch object (default/ssa; apps/v1, Kind=Deployment): .spec.replicass: field not declared in schema",
        code: 500
      })
    }
    // Items of a keyed list are named by their keys; one undeclared field per object.
    const nested = deployment("ssa")
    ;(nested["spec"] as any).template.spec.containers[0].imagee = "x"
    ;(nested["spec"] as any).template.spec.containers[0].ports[0].nam = "x"
    ;(nested["spec"] as any).bogus = 1
    const answer = call(sim, { verb: "patch", ...at("deployments"), name: "ssa", patchType: "apply", fieldManager: "kubectl", body: nested })
    expect((answer.body as any).message).toBe(
      "failed to create typed patch object (/ssa; apps/v1, Kind=Deployment): errors:\n" +
        '  .spec.template.spec.containers[name="serve"].ports[containerPort=8080,protocol="TCP"].nam: field not declared in schema\n' +
        '  .spec.template.spec.containers[name="serve"].imagee: field not declared in schema\n' +
        "  .spec.bogus: field not declared in schema"
    )
    expect(call(sim, { verb: "get", ...at("deployments"), name: "ssa" }).code).toBe(404)
    // The same configuration without the typo is applied, and defaulted.
    const applied = call(sim, { verb: "patch", ...at("deployments"), name: "ssa", patchType: "apply", fieldManager: "kubectl", body: deployment("ssa") })
    expect(applied.code).toBe(201)
    expect((applied.body as any).spec.replicas).toBe(1)
    // Applied again, a port that names no protocol is the defaulted TCP one, not a second port.
    const again = call(sim, { verb: "patch", ...at("deployments"), name: "ssa", patchType: "apply", fieldManager: "kubectl", body: deployment("ssa", { replicas: 3 }) })
    expect(again.code).toBe(200)
    expect((again.body as any).spec.replicas).toBe(3)
    expect((again.body as any).spec.template.spec.containers[0].ports).toEqual([{ name: "http", containerPort: 8080, protocol: "TCP" }])
  })

  it("validates the selector, the containers and the strategy", () => {
    const sim = bareSimulator()
    const refused = (body: KubeObject) => invalidCauses(sim, "deployments", body)
    expect(refused(deployment("a", { selector: { matchLabels: { app: "other" } } }))).toEqual([
      'spec.template.metadata.labels: Invalid value: "object": `selector` does not match template `labels`'
    ])
    expect(refused(deployment("a", { selector: undefined }))).toEqual(["spec.selector: Required value"])
    expect(refused(deployment("a", { replicas: -1 }))).toEqual(["spec.replicas: Invalid value: -1: must be greater than or equal to 0"])
    expect(refused(deployment("a", { strategy: { type: "Recreate", rollingUpdate: {} } }))).toEqual([
      "spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"
    ])
    expect(refused(deployment("a", { template: { metadata: { labels: { app: "a" } }, spec: { containers: [], restartPolicy: "Never" } } }))).toEqual([
      "spec.template.spec.containers: Required value",
      'spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"'
    ])
  })
})
