import { fc, test } from "@fast-check/vitest"
import { describe, expect, it } from "vitest"
import { Resources } from "../src/kinds/Builtin.ts"
import { routeOf } from "../src/http/Route.ts"
import { builtin } from "./BuiltinKinds.ts"

const dnsLabel = fc.stringMatching(/^[a-z]([-a-z0-9]{0,20}[a-z0-9])?$/)
const resource = fc.constantFrom(...Resources)

const collectionPath = (r: (typeof Resources)[number], version: string, namespace: string | undefined): string =>
  `${r.group === "" ? `/api/${version}` : `/apis/${r.group}/${version}`}${namespace === undefined ? "" : `/namespaces/${namespace}`}/${r.plural}`

describe("routeOf", () => {
  test.prop([resource, dnsLabel, dnsLabel, fc.boolean()])("finds every served object and its status", (r, namespace, name, status) => {
    const version = r.versions[0] ?? ""
    const ns = r.namespaced ? namespace : undefined
    const path = `${collectionPath(r, version, ns)}/${name}${status ? "/status" : ""}`
    const route = routeOf(builtin, path)
    if (status && !r.hasStatus) {
      expect(route).toEqual({ kind: "notFound" })
      return
    }
    expect(route).toEqual({
      kind: "resource",
      resource: r,
      version,
      ...(ns === undefined ? {} : { namespace: ns }),
      name,
      ...(status ? { subresource: "status" } : {})
    })
  })

  test.prop([resource, dnsLabel])("a namespaced resource is listed across namespaces without one", (r, namespace) => {
    const version = r.versions[0] ?? ""
    expect(routeOf(builtin, collectionPath(r, version, undefined))).toEqual({ kind: "resource", resource: r, version })
    const inNamespace = routeOf(builtin, collectionPath(r, version, namespace))
    expect(inNamespace.kind).toBe(r.namespaced ? "resource" : "notFound")
  })

  test.prop([fc.array(fc.string(), { maxLength: 8 })])("never throws on any path", (segments) => {
    expect(() => routeOf(builtin, `/${segments.join("/")}`)).not.toThrow()
  })

  it("names the discovery and OpenAPI documents", () => {
    expect(routeOf(builtin, "/version")).toEqual({ kind: "version" })
    expect(routeOf(builtin, "/api")).toEqual({ kind: "coreVersions" })
    expect(routeOf(builtin, "/apis")).toEqual({ kind: "groups" })
    expect(routeOf(builtin, "/api/v1")).toEqual({ kind: "resourceList", group: "", version: "v1" })
    expect(routeOf(builtin, "/apis/kueue.x-k8s.io/v1beta1")).toEqual({ kind: "resourceList", group: "kueue.x-k8s.io", version: "v1beta1" })
    expect(routeOf(builtin, "/openapi/v3")).toEqual({ kind: "openapiRoot" })
    expect(routeOf(builtin, "/openapi/v3/apis/trainer.kubeflow.org/v1alpha1")).toEqual({
      kind: "openapiGroupVersion",
      group: "trainer.kubeflow.org",
      version: "v1alpha1"
    })
    expect(routeOf(builtin, "/openapi/v2")).toEqual({ kind: "openapiV2" })
  })

  it("routes a pod's log", () => {
    expect(routeOf(builtin, "/api/v1/namespaces/default/pods/p/log")).toMatchObject({ kind: "resource", namespace: "default", name: "p", subresource: "log" })
  })

  it("does not serve what is not there", () => {
    for (const path of [
      "/apis/trainer.kubeflow.org/v1",
      "/apis/apps/v1/statefulsets",
      "/api/v1/endpoints",
      "/api/v1/namespaces/default/endpoints",
      "/api/v1/namespaces/default/pods/x/exec",
      "/apis/batch/v1/namespaces/default/jobs/x/log",
      "/apis/trainer.kubeflow.org/v1alpha1/trainjobs/x",
      "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainingruntimes/x/status",
      "/apis/trainer.kubeflow.org/v1alpha1/namespaces/default/trainjobs/x/status/more",
      "/openapi/v3/apis/storage.k8s.io/v1",
      "/%E0%A4%A"
    ]) {
      expect(routeOf(builtin, path), path).toEqual({ kind: "notFound" })
    }
  })
})
