// A seeded fuzz of every operation of the served OpenAPI document: wrong types, huge and negative numbers, NUL
// and invalid UTF-8, deep nesting (of the body, and of JSON and YAML inside its strings), wrong content types, every
// HTTP method (CONNECT and TRACE on a raw socket), other groups' ids, and repeated PUTs that grow an entrypoint.
// Every answer must be below 500 and within the page limit, every 4xx must carry the JSON error body; afterwards
// every list of every group must answer 200 and the service process's RSS must stay within twice its idle RSS.
// The service runs in a process of its own (ServiceProcess.mjs), so its memory is measured, not the runner's.
// DISPATCH_FUZZ_RUNS sets how many requests (default 10,000); DISPATCH_FUZZ_SEED replays a run.
import { execFile, spawn, type ChildProcess } from "node:child_process"
import { readFileSync } from "node:fs"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { defaultLimits } from "../src/index.ts"
import { client, entrypointBody, jobBody, newJob, queueBody, tokenEntries, tokens, type Client } from "./Fixtures.ts"
import { bodyOf as rawBodyOf, headerOf, rawExchange, statusOf } from "./RawHttp.ts"

const runs = Number(process.env["DISPATCH_FUZZ_RUNS"] ?? 10_000)
const seed = Number(process.env["DISPATCH_FUZZ_SEED"] ?? 20261201)

interface Operation {
  readonly method: string
  readonly path: string
  readonly hasBody: boolean
}

interface Sent {
  readonly method: string
  readonly path: string
  readonly contentType: string | undefined
  readonly body: Uint8Array | undefined
  readonly label: string
}

const text = (value: string) => new TextEncoder().encode(value)
const json = (value: unknown) => text(JSON.stringify(value))

const nested = (depth: number): string => `${"[".repeat(depth)}1${"]".repeat(depth)}`

/** Strings the database must never see unchecked: NUL, lone surrogates, very long ones. */
const fieldHazard = fc.oneof(
  fc.constant("a\u0000b"),
  fc.constant("x\uD800y"),
  fc.constant("\uDFFF"),
  fc.integer({ min: 256, max: 70_000 }).map((n) => "m".repeat(n))
)

const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }),
  fieldHazard,
  fc.constantFrom(2147483648, 9007199254740991, -1, 0, 1e308, -1e308, 0.5, "1", true, null, [], {}),
  fc.string({ unit: "binary", maxLength: 40 })
)

/** JSON and YAML nested inside a string, at depths on both sides of every bound: what a list or mapping value, a
 * default or a task graph parses. */
const nestedString: fc.Arbitrary<string> = fc.oneof(
  fc.integer({ min: 1, max: 6000 }).map((d) => `${'{"a":'.repeat(d)}1${"}".repeat(d)}`),
  fc.integer({ min: 1, max: 6000 }).map((d) => `${"[".repeat(d)}${"]".repeat(d)}`),
  fc.integer({ min: 1, max: 6000 }).map((d) => `${'[{"a":'.repeat(d)}1${"}]".repeat(d)}`),
  fc.integer({ min: 1, max: 16_000 }).map((d) => `${"- ".repeat(d)}v`),
  fc.integer({ min: 1, max: 16_000 }).map((d) => `a: ${"[".repeat(d)}${"]".repeat(d)}`),
  fc.integer({ min: 60, max: 70 }).map(nested),
  fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v) ?? "null")
)

const idSegment = (ids: ReadonlyArray<number>) =>
  fc.oneof(
    fc.constantFrom(...ids.map(String)),
    fc.constantFrom("0", "-1", "01", "0x10", "1.0", "1e0", "%201", "2147483648", "9007199254740991", "99999999999999999999", "%00", "%FF", "%C3%28", "%E0%A4%A", "abc", ""),
    fc.integer().map(String)
  )

const bodyOf = (hasBody: boolean) =>
  fc.oneof(
    { weight: 5, arbitrary: fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 8 }).map((v) => ({ label: "object", body: json(v) })) },
    { weight: 2, arbitrary: hostileValue.map((v) => ({ label: "value", body: text(JSON.stringify(v) ?? "null") })) },
    { weight: 1, arbitrary: fc.integer({ min: 60, max: 6000 }).map((d) => ({ label: `nested ${d}`, body: text(nested(d)) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((b) => ({ label: "bytes", body: b })) },
    { weight: 1, arbitrary: fc.constantFrom("{", '{"a":', "[1,]", '"\\ud800"', '{"name":"\\u0000"}').map((t) => ({ label: "broken json", body: text(t) })) },
    { weight: hasBody ? 0 : 1, arbitrary: fc.constant({ label: "none", body: undefined as Uint8Array | undefined }) }
  )

/** The world the targeted strategies aim at: a typed entrypoint (one parameter of every type) in an experiment, an
 * entrypoint whose defaults are rewritten, one that grows, and a job to post logs and metrics to. */
interface Targets {
  readonly queue: number
  readonly experiment: number
  readonly typed: number
  readonly defaults: number
  readonly grow: number
  readonly job: number
}

const parameterTypes = ["string", "float", "integer", "boolean", "list", "mapping"] as const

/** A value each type takes, for the parameters a request leaves unnested. */
const plainValue: Readonly<Record<(typeof parameterTypes)[number], string>> = { string: "s", float: "0.5", integer: "1", boolean: "true", list: "[1]", mapping: "{}" }

/** Requests over every operation of the document, in every way a client could get them wrong. */
const generic = (operations: ReadonlyArray<Operation>, ownIds: ReadonlyArray<number>, otherIds: ReadonlyArray<number>): fc.Arbitrary<Sent> =>
  fc
    .record({
      operation: fc.constantFrom(...operations),
      method: fc.oneof({ weight: 8, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: fc.constantFrom("GET", "POST", "PUT", "DELETE", "PATCH") }),
      id: idSegment([...ownIds, ...otherIds]),
      name: fc.oneof(fc.constant("loss"), fc.string({ maxLength: 20 }).map(encodeURIComponent), fc.constantFrom("%00", "%FF")),
      query: fc.oneof(
        fc.constant(""),
        fc.constantFrom("?index=-1", "?pageLength=100000", "?index=9007199254740993", "?sortBy=color", "?search=%00", "?search=%FF", "?descending=yes", "?index=1e3"),
        // Dioptra's list query as its Python client sends it: a repeated list, Python's booleans, its search language.
        fc.constantFrom(
          "?severity=ERROR&severity=INFO",
          "?severity=ERROR&severity=FATAL",
          "?index=0&index=1",
          "?descending=True&sortBy=logger_name",
          "?search=description%3A*a%3F",
          "?search=%22unterminated",
          "?search=colour%3Ared",
          "?search=%5C",
          "?sortBy=queue&descending=False&groupId=1"
        ),
        fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 10 }), { maxKeys: 3 }).map((q) => `?${new URLSearchParams(q).toString()}`)
      ),
      contentType: fc.constantFrom(undefined, "application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1"),
      body: bodyOf(true)
    })
    .map(({ operation, method, id, name, query, contentType, body }) => {
      const path = operation.path.replace(/\{name\}/g, name).replace(/\{[A-Za-z]+\}/g, id)
      return { method: method ?? operation.method, path: `${path}${query}`, contentType, body: body.body, label: body.label }
    })

/** JSON and YAML nested inside string values of every type: job values, defaults, task graphs, descriptions, log
 * messages, metric names. */
const nestedInStrings = (targets: Targets): fc.Arbitrary<Sent> => {
  const maybe = fc.option(nestedString, { nil: undefined })
  const sent = (method: string, path: string, label: string) => (body: unknown): Sent => ({ method, path, contentType: "application/json", body: json(body), label: `nested in strings: ${label}` })
  return fc.oneof(
    // One parameter's value nested, the others plain: a value within the bounds makes a job (stored, and listed
    // afterwards), one past them is refused for its nesting alone.
    fc
      .record({ type: fc.constantFrom(...parameterTypes), value: nestedString, description: maybe })
      .map(({ type, value, description }) => ({
        ...jobBody(targets.typed, targets.queue, { values: { ...Object.fromEntries(parameterTypes.map((t) => [`p_${t}`, plainValue[t]])), [`p_${type}`]: value } }),
        ...(description === undefined ? {} : { description })
      }))
      .map(sent("POST", `/experiments/${targets.experiment}/jobs`, "job values")),
    fc
      .record({ defaults: fc.array(maybe, { minLength: 6, maxLength: 6 }), taskGraph: maybe, description: maybe })
      .map(({ defaults, taskGraph, description }) => ({
        ...entrypointBody("fuzz-defaults", [targets.queue]),
        parameters: parameterTypes.map((type, k) => ({ name: `p_${type}`, type, ...(defaults[k] === undefined ? {} : { defaultValue: defaults[k] }) })),
        ...(taskGraph === undefined ? {} : { taskGraph }),
        ...(description === undefined ? {} : { description })
      }))
      .map(sent("PUT", `/entrypoints/${targets.defaults}`, "defaults and task graph")),
    nestedString.map((message) => ({ data: [{ severity: "INFO", loggerName: "fuzz", message }] })).map(sent("POST", `/jobs/${targets.job}/log`, "log message")),
    nestedString.map((name) => ({ name, value: 1, step: 0 })).map(sent("POST", `/jobs/${targets.job}/metrics`, "metric name")),
    nestedString.map((description) => ({ name: `fuzz-nested-queue`, description })).map(sent("POST", "/queues", "queue description"))
  )
}

/** PUTs of one entrypoint with up to 40 parameters of up to 64,000 characters each (2.5 MB): it grows until its
 * snapshot or its kept snapshots pass their bounds. */
const growingPuts = (targets: Targets): fc.Arbitrary<Sent> =>
  fc.record({ count: fc.integer({ min: 1, max: 40 }), chars: fc.integer({ min: 1000, max: 64_000 }), tag: fc.nat() }).map(({ count, chars, tag }) => ({
    method: "PUT",
    path: `/entrypoints/${targets.grow}`,
    contentType: "application/json",
    body: json({
      ...entrypointBody("fuzz-grow", [targets.queue]),
      parameters: [{ name: "data_dir", type: "string" }, ...Array.from({ length: count }, (_, i) => ({ name: `g${i}`, type: "string", defaultValue: `${tag}-${"g".repeat(chars)}` }))]
    }),
    label: `growing PUT of ${count} x ${chars}`
  }))

/** Every HTTP method, those fetch cannot send (CONNECT, TRACE, TRACK) and tokens no standard defines among them. */
const everyMethod = (operations: ReadonlyArray<Operation>, ownIds: ReadonlyArray<number>): fc.Arbitrary<Sent> =>
  fc
    .record({
      path: fc.oneof(fc.constantFrom(...operations.map((o) => o.path)), fc.constantFrom("", "/", "/openapi.json", "/docs", "/../healthz", "/nowhere")),
      method: fc.constantFrom("GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT", "TRACK", "PROPFIND", "FOO", "M-SEARCH"),
      id: idSegment(ownIds),
      body: fc.option(fc.jsonValue({ maxDepth: 3 }), { nil: undefined })
    })
    .map(({ path, method, id, body }) => ({
      method,
      path: path.replace(/\{name\}/g, "loss").replace(/\{[A-Za-z]+\}/g, id),
      contentType: body === undefined ? undefined : "application/json",
      body: body === undefined ? undefined : json(body),
      label: `method ${method}`
    }))

/** Sends what fetch will not (CONNECT, TRACE, TRACK) on a socket of its own and reads the answer until it closes. */
const rawRequest = async (url: string, sent: Sent): Promise<{ readonly status: number; readonly contentType: string; readonly body: string }> => {
  const body = sent.body ?? new Uint8Array()
  const headers = [`Host: ${new URL(url).hostname}`, `Authorization: Bearer ${tokens.alice}`, ...(sent.contentType === undefined ? [] : [`Content-Type: ${sent.contentType}`]), `Content-Length: ${body.length}`, "Connection: close"]
  const answer = await rawExchange(url, `${sent.method} /api/v1${sent.path} HTTP/1.1\r\n${headers.join("\r\n")}\r\n\r\n`, body)
  // A connection closed without a status line is no answer (what CONNECT got before the service handled it).
  if (Number.isNaN(statusOf(answer))) throw new Error(`the connection closed with no answer: ${JSON.stringify(answer.slice(0, 200))}`)
  return { status: statusOf(answer), contentType: headerOf(answer, "content-type") ?? "", body: rawBodyOf(answer) }
}

const serverDir = fileURLToPath(new URL("..", import.meta.url))

/** The resident memory of a process, in bytes (Linux's /proc). */
const rssOf = (pid: number): number => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? Number.NaN) * 1024

/** Starts the built service in a process of its own and resolves to its URL once it serves. */
const startServiceProcess = async (dataDir: string): Promise<{ readonly child: ChildProcess; readonly url: string }> => {
  await new Promise<void>((resolve, reject) =>
    execFile("npx", ["tsc", "-b", serverDir], { cwd: serverDir, timeout: 600_000 }, (error, stdout) => (error === null ? resolve() : reject(new Error(`packages/server did not build: ${stdout}`))))
  )
  const child = spawn(process.execPath, [join(serverDir, "test", "ServiceProcess.mjs")], {
    env: { ...process.env, DISPATCH_TEST_TOKENS: JSON.stringify(tokenEntries), DISPATCH_TEST_DATA_DIR: dataDir },
    stdio: ["ignore", "pipe", "pipe"]
  })
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      const line = out.split("\n").find((l) => l.startsWith("{"))
      if (line !== undefined) resolve((JSON.parse(line) as { url: string }).url)
    })
    child.on("exit", (code) => reject(new Error(`the service process exited (${code}) before it served: ${stderr}`)))
  })
  return { child, url }
}

/** Every list each client's group has, every page of it: the collections, each experiment's jobs, each
 * entrypoint's snapshots, each job's log. Answers the lists read and those that did not answer 200. */
const everyList = async (callers: ReadonlyArray<Client>, url: string) => {
  const failed: Array<string> = []
  let read = 0
  let listed = 0
  const prefix = `${url}/api/v1`
  for (const call of callers) {
    const pages = async (path: string): Promise<ReadonlyArray<{ readonly id: number }>> => {
      read++
      const items: Array<{ readonly id: number }> = []
      for (let next: string | undefined = `${path}?pageLength=100`; next !== undefined; ) {
        const page: { readonly status: number; readonly body: any } = await call("GET", next)
        if (page.status !== 200) {
          failed.push(`GET ${next} -> ${page.status} ${JSON.stringify(page.body).slice(0, 200)}`)
          return items
        }
        items.push(...(page.body.data as ReadonlyArray<{ readonly id: number }>))
        listed += page.body.data.length
        next = typeof page.body.next === "string" ? page.body.next.slice(prefix.length) : undefined
      }
      return items
    }
    const [jobs, experiments, entrypoints] = [await pages("/jobs"), await pages("/experiments"), await pages("/entrypoints")]
    await pages("/queues")
    for (const experiment of experiments) await pages(`/experiments/${experiment.id}/jobs`)
    for (const entrypoint of entrypoints) await pages(`/entrypoints/${entrypoint.id}/snapshots`)
    for (const job of jobs) await pages(`/jobs/${job.id}/log`)
  }
  return { read, items: listed, failed }
}

describe("fuzzing every operation of the OpenAPI document", () => {
  let service: { readonly child: ChildProcess; readonly url: string } | undefined
  let dataDir = ""
  let alice: Client | undefined
  let bob: Client | undefined
  let targets: Targets | undefined
  let idleRss = 0
  const own: Array<number> = []
  const other: Array<number> = []
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "dispatch-fuzz-"))
    service = await startServiceProcess(dataDir)
    alice = client(service.url, tokens.alice)
    bob = client(service.url, tokens.bob)
    const mine = await newJob(alice, "fuzz-a")
    const theirs = await newJob(bob, "fuzz-b")
    own.push(mine.job.id, mine.world.experiment, mine.world.entrypoint, mine.world.queue)
    other.push(theirs.job.id, theirs.world.experiment, theirs.world.entrypoint, theirs.world.queue)
    const made = async (path: string, body: unknown): Promise<number> => {
      const answer = await (alice as Client)("POST", path, body)
      if (answer.status !== 200) throw new Error(`POST ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`)
      return answer.body.id as number
    }
    const queue = await made("/queues", queueBody("fuzz-typed-q"))
    const typed = await made("/entrypoints", { ...entrypointBody("fuzz-typed", [queue]), parameters: parameterTypes.map((type) => ({ name: `p_${type}`, type })) })
    const defaults = await made("/entrypoints", entrypointBody("fuzz-defaults", [queue]))
    const grow = await made("/entrypoints", entrypointBody("fuzz-grow", [queue]))
    const experiment = await made("/experiments", { name: "fuzz-typed-x", entrypoints: [typed] })
    targets = { queue, experiment, typed, defaults, grow, job: mine.job.id }
    // The typed entrypoint takes a job whose values are plain: the nested ones are refused for their nesting alone.
    await made(`/experiments/${experiment}/jobs`, jobBody(typed, queue, { values: Object.fromEntries(parameterTypes.map((type) => [`p_${type}`, plainValue[type]])) }))
    // Idle: started, its worlds registered, answering nothing.
    idleRss = rssOf(service.child.pid ?? 0)
  })
  afterAll(async () => {
    if (service !== undefined) {
      const exited = new Promise((resolve) => service?.child.on("exit", resolve))
      service.child.kill("SIGTERM")
      await exited
    }
    await rm(dataDir, { recursive: true, force: true })
  })

  test(`${runs} generated requests: no 5xx, no answer past the page limit, a JSON error body on every 4xx; then every list of every group answers 200 and RSS stays within 2x idle`, { timeout: 3_600_000 }, async () => {
    const url = service?.url ?? ""
    const world = targets as Targets
    const started = performance.now()
    const document = (await (await fetch(`${url}/api/v1/openapi.json`)).json()) as { paths: Record<string, Record<string, { requestBody?: unknown }>> }
    const operations = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).map(([method, operation]) => ({ method: method.toUpperCase(), path, hasBody: operation.requestBody !== undefined }))
    )
    expect(operations.length).toBeGreaterThan(20)
    const strategies = fc.oneof(
      { weight: 14, arbitrary: generic(operations, own, other) },
      { weight: 3, arbitrary: nestedInStrings(world) },
      { weight: 1, arbitrary: growingPuts(world) },
      { weight: 2, arbitrary: everyMethod(operations, own) }
    )
    const samples = fc.sample(strategies, { numRuns: runs, seed })
    const serverErrors: Array<string> = []
    const bareRefusals: Array<string> = []
    const unanswered: Array<string> = []
    const oversized: Array<string> = []
    // The page limit, and the envelope around a page's items.
    const answerLimit = defaultLimits.pageBytes + 64 * 1024
    // A few at a time: enough to keep the run short, few enough never to look like a load test.
    const inFlight = 8
    for (let start = 0; start < samples.length; start += inFlight) {
      await Promise.all(
        samples.slice(start, start + inFlight).map(async (sent) => {
          const raw = ["CONNECT", "TRACE", "TRACK"].includes(sent.method)
          const response = await (raw
            ? rawRequest(url, sent)
            : fetch(`${url}/api/v1${sent.path}`, {
                method: sent.method,
                headers: { authorization: `Bearer ${tokens.alice}`, ...(sent.contentType === undefined ? {} : { "content-type": sent.contentType }) },
                ...(sent.body === undefined || sent.method === "GET" || sent.method === "HEAD" ? {} : { body: sent.body })
              }).then(async (r) => ({ status: r.status, contentType: r.headers.get("content-type") ?? "", body: await r.text() }))
          ).catch((cause: unknown) => cause as Error)
          if (response instanceof Error) {
            unanswered.push(`${sent.method} ${sent.path.slice(0, 120)} [${sent.label}] -> no answer: ${String((response.cause as Error | undefined)?.message ?? response.message)}`)
            return
          }
          const what = `${sent.method} ${sent.path.slice(0, 120)} [${sent.label}] -> ${response.status} ${response.body.slice(0, 200)}`
          if (Buffer.byteLength(response.body) > answerLimit) oversized.push(`${what} (${Buffer.byteLength(response.body)} bytes)`)
          if (response.status >= 500) serverErrors.push(what)
          else if (response.status >= 400 && sent.method !== "HEAD") {
            let body: unknown
            try {
              body = JSON.parse(response.body)
            } catch {
              body = undefined
            }
            const shaped = typeof body === "object" && body !== null && "error" in body && "message" in body && "detail" in body
            if (!shaped || !response.contentType.includes("application/json")) bareRefusals.push(what)
          }
        })
      )
    }
    const sentMs = performance.now() - started
    // Afterwards: every list of both groups answers, the service still creates and reads a job, and its memory
    // has not grown past twice what it held idle.
    const lists = await everyList([alice as Client, bob as Client], url)
    const after = await newJob(alice as Client, "fuzz-after")
    const read = await (alice as Client)("GET", `/jobs/${after.job.id}`)
    const afterRss = rssOf(service?.child.pid ?? 0)
    const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`
    const figures = `seed ${seed}, ${samples.length} requests in ${(sentMs / 1000).toFixed(1)} s; ${lists.read} lists (${lists.items} items) read afterwards, ${lists.failed.length} not 200; service RSS idle ${mib(idleRss)}, after ${mib(afterRss)}`
    console.info(`fuzz: ${figures}`)
    const report = [
      figures,
      `5xx: ${serverErrors.length}`,
      ...serverErrors.slice(0, 10),
      `answers past the page limit: ${oversized.length}`,
      ...oversized.slice(0, 10),
      `4xx without the JSON error body: ${bareRefusals.length}`,
      ...bareRefusals.slice(0, 10),
      `requests without an answer: ${unanswered.length}`,
      ...unanswered.slice(0, 10),
      `lists not answering 200: ${lists.failed.length}`,
      ...lists.failed.slice(0, 10)
    ].join("\n")
    expect(
      { serverErrors: serverErrors.length, oversized: oversized.length, bareRefusals: bareRefusals.length, unanswered: unanswered.length, listsFailed: lists.failed.length },
      report
    ).toEqual({ serverErrors: 0, oversized: 0, bareRefusals: 0, unanswered: 0, listsFailed: 0 })
    expect(lists.read, report).toBeGreaterThan(10)
    expect(read, report).toMatchObject({ status: 200, body: { id: after.job.id, status: "queued" } })
    expect(afterRss, report).toBeLessThanOrEqual(2 * idleRss)
  })
})
