// The web page's files as the service answers them at `/`: index.html never cached (so a new build is seen at
// once), the hashed assets cached for a year (their names change with their content), each with its content
// type, gzipped once in memory for clients that take gzip. Only files the build made are served: the set is
// read from the build's directory, so no request path reaches the file system.
import { readFile, readdir, stat } from "node:fs/promises"
import { extname, join } from "node:path"
import { gzipSync } from "node:zlib"

/** One file of the web app, ready to answer. */
export interface WebFile {
  readonly body: Uint8Array
  /** The body gzipped, when that makes it smaller. */
  readonly gzipped?: Uint8Array
  readonly contentType: string
  readonly cacheControl: string
}

/** The web app's files by the URL path that answers them (`/` for index.html, `/assets/<name>`). */
export type WebFiles = ReadonlyMap<string, WebFile>

const contentTypes: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8"
}

/** The content type a file is answered with, from its extension; bytes for an unknown one. */
export const contentTypeOf = (name: string): string => contentTypes[extname(name).toLowerCase()] ?? "application/octet-stream"

/** The URL path of the web page itself. */
export const webIndexPath = "/"

/** The URL prefix of the web app's hashed assets. */
export const webAssetsPrefix = "/assets/"

/** What the page may load: only this origin's scripts, styles and API (inline style attributes for the charts);
 * the browser itself then refuses any request that would leave the service. */
export const webContentPolicy =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

const immutable = "public, max-age=31536000, immutable"
const revalidate = "no-cache"

// Images and fonts are compressed already; gzip only pays on text.
const compressible = (contentType: string) => /^(text\/|application\/json|image\/svg)/.test(contentType)

const fileOf = (name: string, body: Uint8Array, cacheControl: string): WebFile => {
  const contentType = contentTypeOf(name)
  const gzipped = compressible(contentType) ? gzipSync(body, { level: 9 }) : undefined
  return { body, contentType, cacheControl, ...(gzipped !== undefined && gzipped.length < body.length ? { gzipped } : {}) }
}

/** Reads a built web app: `index.html` and every file of `assets/`; none when the app is not built there. */
export const loadWebFiles = async (root: string): Promise<WebFiles | undefined> => {
  const index = await readFile(join(root, "index.html")).catch(() => undefined)
  if (index === undefined) return undefined
  const names = await readdir(join(root, "assets"), { withFileTypes: true }).catch(() => [])
  const assets = await Promise.all(
    names.filter((entry) => entry.isFile()).map(async (entry) => [`${webAssetsPrefix}${entry.name}`, fileOf(entry.name, await readFile(join(root, "assets", entry.name)), immutable)] as const)
  )
  return new Map([[webIndexPath, fileOf("index.html", index, revalidate)], ...assets])
}

const loaded = new Map<string, { readonly built: number; readonly files: Promise<WebFiles | undefined> }>()

/** The web app built at `root`, read once per build (a rebuild, seen by index.html's time, is read afresh); a root
 * found unbuilt is looked at again on the next request. */
export const webFilesAt = async (root: string): Promise<WebFiles | undefined> => {
  const built = await stat(join(root, "index.html")).then((s) => s.mtimeMs, () => undefined)
  if (built === undefined) {
    loaded.delete(root)
    return undefined
  }
  const known = loaded.get(root)
  if (known !== undefined && known.built === built) return known.files
  const files = loadWebFiles(root)
  loaded.set(root, { built, files })
  return files
}

/** True when an `Accept-Encoding` header takes gzip (and does not refuse it with `q=0`). */
export const acceptsGzip = (acceptEncoding: string | undefined): boolean =>
  (acceptEncoding ?? "").split(",").some((part) => {
    const [coding = "", ...params] = part.trim().toLowerCase().split(";")
    if (coding.trim() !== "gzip" && coding.trim() !== "*") return false
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    return q === undefined || Number(q) > 0
  })

/** What a request for `path` is answered: the body, and the headers that describe it. */
export const webAnswer = (file: WebFile, acceptEncoding: string | undefined): { readonly body: Uint8Array; readonly headers: Readonly<Record<string, string>> } => {
  const gzip = file.gzipped !== undefined && acceptsGzip(acceptEncoding)
  return {
    body: gzip && file.gzipped !== undefined ? file.gzipped : file.body,
    headers: {
      "cache-control": file.cacheControl,
      vary: "accept-encoding",
      "x-content-type-options": "nosniff",
      ...(file.contentType.startsWith("text/html") ? { "content-security-policy": webContentPolicy } : {}),
      ...(gzip ? { "content-encoding": "gzip" } : {})
    }
  }
}
