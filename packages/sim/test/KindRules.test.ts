// The new built-in kinds' defaults and rules as pure functions, case by case: what each sets, keeps and
// refuses, without a simulator around them.
import { describe, expect, it } from "vitest"
import { defaultPullPolicy, podSpecDefaults } from "../src/kinds/core/pod/PodTemplateDefaults.ts"
import { checkService, prepareService, serviceDefaults } from "../src/kinds/core/service/ServiceRules.ts"
import { checkSecret, secretDefaults } from "../src/kinds/core/secret/SecretRules.ts"
import type { Allocator } from "../src/kinds/Kind.ts"
import type { KubeObject } from "../src/Api.ts"

const lines = (errors: ReadonlyArray<{ field: string; message: string }>) => errors.map((e) => `${e.field}: ${e.message}`)

describe("pod template defaults", () => {
  it("pull latest and untagged images always, tagged and digested ones if not present", () => {
    expect(defaultPullPolicy("busybox")).toBe("Always")
    expect(defaultPullPolicy("busybox:latest")).toBe("Always")
    expect(defaultPullPolicy("registry:5000/busybox")).toBe("Always")
    expect(defaultPullPolicy("registry:5000/busybox:1.36")).toBe("IfNotPresent")
    expect(defaultPullPolicy("busybox@sha256:abc")).toBe("IfNotPresent")
    expect(defaultPullPolicy(undefined)).toBe("IfNotPresent")
  })

  it("fill each container's probes, handlers, env sources and host ports, and each volume's mode", () => {
    const spec = podSpecDefaults({
      hostNetwork: true,
      serviceAccountName: "sa",
      initContainers: [{ name: "init", image: "i:1" }],
      containers: [
        {
          name: "c",
          image: "c",
          ports: [{ containerPort: 80 }],
          env: [{ name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name" } } }, { name: "B", valueFrom: { resourceFieldRef: { resource: "limits.cpu" } } }, { name: "C", value: "c" }],
          startupProbe: { tcpSocket: { port: 80 } },
          lifecycle: { postStart: { httpGet: { port: 80 } }, preStop: { exec: { command: ["x"] } } }
        }
      ],
      volumes: [
        { name: "h", hostPath: { path: "/h" } },
        { name: "p", projected: { sources: [{ serviceAccountToken: { path: "t" } }, { configMap: { name: "c" } }] } },
        { name: "s", secret: { secretName: "s", defaultMode: 256 } },
        { name: "d", downwardAPI: {} }
      ]
    }) as any
    expect(spec.serviceAccount).toBe("sa")
    expect(spec.initContainers[0]).toMatchObject({ terminationMessagePolicy: "File", imagePullPolicy: "IfNotPresent" })
    const c = spec.containers[0]
    expect(c.imagePullPolicy).toBe("Always")
    expect(c.ports).toEqual([{ containerPort: 80, protocol: "TCP", hostPort: 80 }])
    expect(c.env).toEqual([
      { name: "A", valueFrom: { fieldRef: { fieldPath: "metadata.name", apiVersion: "v1" } } },
      { name: "B", valueFrom: { resourceFieldRef: { resource: "limits.cpu", divisor: "0" } } },
      { name: "C", value: "c" }
    ])
    expect(c.startupProbe).toEqual({ tcpSocket: { port: 80 }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 })
    expect(c.lifecycle).toEqual({ postStart: { httpGet: { port: 80, path: "/", scheme: "HTTP" } }, preStop: { exec: { command: ["x"] } } })
    expect(spec.volumes).toEqual([
      { name: "h", hostPath: { path: "/h", type: "" } },
      { name: "p", projected: { sources: [{ serviceAccountToken: { path: "t", expirationSeconds: 3600 } }, { configMap: { name: "c" } }], defaultMode: 420 } },
      { name: "s", secret: { secretName: "s", defaultMode: 256 } },
      { name: "d", downwardAPI: { defaultMode: 420 } }
    ])
    // Without host networking no host port is set; a container without ports or env gets none.
    const plain = podSpecDefaults({ containers: [{ name: "c", image: "c:1", ports: [{ containerPort: 80 }] }, { name: "d", image: "d:1" }] }) as any
    expect(plain.containers[0].ports).toEqual([{ containerPort: 80, protocol: "TCP" }])
    expect(Object.keys(plain.containers[1]).sort()).toEqual(["image", "imagePullPolicy", "name", "resources", "terminationMessagePath", "terminationMessagePolicy"])
    expect(plain.serviceAccount).toBeUndefined()
    expect(plain.volumes).toBeUndefined()
    expect(plain.initContainers).toBeUndefined()
    // A deprecated serviceAccount given is kept.
    expect((podSpecDefaults({ serviceAccountName: "a", serviceAccount: "b" }) as any).serviceAccount).toBe("b")
  })
})

// An allocator over a list of services, drawing the given numbers in turn.
const allocator = (services: ReadonlyArray<KubeObject>, draws: ReadonlyArray<number>): Allocator => {
  let i = 0
  return { int: (bound) => (draws[i++] ?? 0) % bound, stored: () => services }
}
const svc = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: "v1", kind: "Service", metadata: { name: "s" }, spec })

describe("Service defaults, allocation and rules", () => {
  it("default each type's traffic policies, a ClientIP affinity's timeout and a port's target", () => {
    expect((serviceDefaults(svc({ type: "LoadBalancer", ports: [{ port: 80, targetPort: 0 }] })) as any).spec).toEqual({
      type: "LoadBalancer",
      sessionAffinity: "None",
      ports: [{ port: 80, protocol: "TCP", targetPort: 80 }],
      internalTrafficPolicy: "Cluster",
      externalTrafficPolicy: "Cluster",
      allocateLoadBalancerNodePorts: true
    })
    expect((serviceDefaults(svc({ ports: [{ port: 80, targetPort: "" }] })) as any).spec).toEqual({ type: "ClusterIP", sessionAffinity: "None", ports: [{ port: 80, protocol: "TCP", targetPort: 80 }], internalTrafficPolicy: "Cluster" })
    expect((serviceDefaults(svc({ type: "NodePort" })) as any).spec.allocateLoadBalancerNodePorts).toBeUndefined()
    expect((serviceDefaults(svc({ type: "NodePort" })) as any).spec.externalTrafficPolicy).toBe("Cluster")
    expect((serviceDefaults(svc({ sessionAffinity: "ClientIP" })) as any).spec.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 10800 } })
    expect((serviceDefaults(svc({ sessionAffinity: "ClientIP", sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } } })) as any).spec.sessionAffinityConfig).toEqual({ clientIP: { timeoutSeconds: 5 } })
  })

  it("draw the next free address and node port, skipping the range's reserved addresses and taken ones", () => {
    const taken = [svc({ clusterIP: "10.96.0.2", ports: [{ port: 80, nodePort: 30000 }] })]
    // A draw of 0 lands on the network address, then the `kubernetes` Service's, then a taken one.
    const prepared = prepareService(svc({ type: "NodePort", ports: [{ port: 80 }, { port: 81, nodePort: 31000 }, { port: 82, nodePort: 0 }] }), allocator(taken, [0, 0, 0])) as any
    expect(prepared.spec.clusterIP).toBe("10.96.0.3")
    expect(prepared.spec.ports.map((p: any) => p.nodePort)).toEqual([30001, 31000, 30002])
    expect(prepared.status).toEqual({ loadBalancer: {} })
    // The last address of the range is its broadcast address, never handed out: the draw wraps past the reserved first two.
    expect((prepareService(svc({ type: "ClusterIP", ports: [{ port: 1 }] }), allocator([], [(1 << 20) - 1])) as any).spec.clusterIP).toBe("10.96.0.2")
    // A LoadBalancer that allocates no node ports gets none.
    expect((prepareService(svc({ type: "LoadBalancer", allocateLoadBalancerNodePorts: false, ports: [{ port: 80 }] }), allocator([], [5])) as any).spec.ports).toEqual([{ port: 80 }])
    expect((prepareService(svc({ type: "LoadBalancer", ports: [{ port: 80 }] }), allocator([], [5, 5])) as any).spec.ports).toEqual([{ port: 80, nodePort: 30005 }])
  })

  it("refuse unnamed, repeated, out-of-range and unknown-protocol ports, and an ExternalName without a name", () => {
    expect(lines(checkService(svc({ ports: [{ name: "a", port: 80 }, { name: "a", port: 80, protocol: "TCP" }, { name: "b", port: 65535, protocol: "HTTP" }, { name: "c", port: 65536 }] })))).toEqual([
      'spec.ports[1].name: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: "object"',
      'spec.ports[2].protocol: Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"',
      "spec.ports[3].port: Invalid value: 65536: must be between 1 and 65535, inclusive"
    ])
    expect(lines(checkService(svc({ ports: [{ name: "u", port: 53, protocol: "UDP" }, { name: "s", port: 53, protocol: "SCTP" }, { name: "t", port: 1 }] })))).toEqual([])
    expect(lines(checkService(svc({ ports: [{ name: "x" }] })))).toEqual(["spec.ports[0].port: Required value"])
    expect(lines(checkService(svc({ type: "ExternalName" })))).toEqual(["spec.externalName: Required value"])
    expect(lines(checkService(svc({ type: "ExternalName", externalName: "" })))).toEqual(["spec.externalName: Required value"])
    expect(lines(checkService(svc({ type: "ExternalName", externalName: "db.example.com" })))).toEqual([])
    expect(lines(checkService(svc({ clusterIP: "None" })))).toEqual([])
  })
})

describe("Secret defaults and rules", () => {
  it("fold stringData (a non-string value as empty) and default only a missing or empty type", () => {
    expect(secretDefaults({ stringData: { a: "x", b: 1 } })).toEqual({ data: { a: "eA==", b: "" }, type: "Opaque" })
    expect(secretDefaults({ type: "" })).toEqual({ type: "Opaque" })
    expect(secretDefaults({ type: "kubernetes.io/tls" })).toEqual({ type: "kubernetes.io/tls" })
  })

  it("refuse more than 1 MiB, a basic-auth secret with neither username nor password, and changes once immutable", () => {
    // Base64 standing for just over 1 MiB, and just under.
    expect(lines(checkSecret({ data: { big: "AAAA".repeat(349_526) } }, undefined))).toEqual(["data: Too long: may not be more than 1048576 bytes"])
    expect(lines(checkSecret({ data: { big: "AAAA".repeat(349_525) } }, undefined))).toEqual([])
    expect(lines(checkSecret({ data: { small: "AAAA" } }, undefined))).toEqual([])
    expect(lines(checkSecret({ type: "kubernetes.io/basic-auth", data: {} }, undefined))).toEqual(["data[username]: Required value", "data[password]: Required value"])
    expect(lines(checkSecret({ type: "kubernetes.io/basic-auth", data: { password: "cA==" } }, undefined))).toEqual([])
    expect(lines(checkSecret({ type: "kubernetes.io/dockerconfigjson", data: {} }, undefined))).toEqual(["data[.dockerconfigjson]: Required value"])
    const old = { type: "Opaque", immutable: true, data: { a: "YQ==" } }
    expect(lines(checkSecret({ type: "Opaque", immutable: true, data: { a: "YQ==" } }, old))).toEqual([])
    expect(lines(checkSecret({ type: "Opaque", data: { a: "YQ==" } }, old))).toEqual(["immutable: Forbidden: field is immutable when `immutable` is set"])
    expect(lines(checkSecret({ type: "Opaque", immutable: true, data: {} }, old))).toEqual(["data: Forbidden: field is immutable when `immutable` is set"])
    expect(lines(checkSecret({ type: "Opaque", data: {} }, { type: "Opaque", data: { a: "YQ==" } }))).toEqual([])
    expect(lines(checkSecret({ data: { a: "not base64" } }, undefined))).toEqual(['data[a]: Invalid value: "<secret contents redacted>": illegal base64 data'])
  })
})
