// The request target of an HTTP request line, read without `new URL`: a target like `//` or `//[::1` is a
// valid origin-form path to the HTTP parser but an invalid URL, and must be answered, not thrown on.
import { Result } from "effect"
import { BadRequestTarget } from "../wire/ServiceProblem.ts"

/** The path and query string of a request target. */
export interface RequestTarget {
  readonly pathname: string
  readonly searchParams: URLSearchParams
}

const absoluteForm = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//

const originForm = (target: string): RequestTarget => {
  const hash = target.indexOf("#")
  const withoutHash = hash === -1 ? target : target.slice(0, hash)
  const question = withoutHash.indexOf("?")
  return question === -1
    ? { pathname: withoutHash, searchParams: new URLSearchParams() }
    : { pathname: withoutHash.slice(0, question), searchParams: new URLSearchParams(withoutHash.slice(question + 1)) }
}

/** Reads a request target: origin-form (`/path?query`) as it is, absolute-form (`http://host/path`) by its path;
 * anything else (an authority, `*`, a URL that does not parse) is a BadRequestTarget. */
export const parseRequestTarget = (target: string): Result.Result<RequestTarget, BadRequestTarget> => {
  if (target.startsWith("/")) return Result.succeed(originForm(target))
  if (absoluteForm.test(target)) {
    let url: URL
    try {
      url = new URL(target)
    } catch {
      return Result.fail(new BadRequestTarget({ target, reason: "it is not a URL" }))
    }
    return Result.succeed(originForm(`${url.pathname}${url.search}`))
  }
  return Result.fail(new BadRequestTarget({ target, reason: "it is neither a path (/...) nor an absolute URL" }))
}
