// The page a location hash names (`#/jobs/12`), and the hash of a page: the app's only routing.

/** A page of the app. */
export type Route =
  | { readonly page: "login" }
  | { readonly page: "experiments" }
  | { readonly page: "experiment"; readonly id: number }
  | { readonly page: "jobs" }
  | { readonly page: "job"; readonly id: number }
  | { readonly page: "queues" }
  | { readonly page: "notFound"; readonly hash: string }

const id = (text: string | undefined): number | undefined => (text !== undefined && /^[1-9][0-9]{0,15}$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : undefined)

/** The page a location hash names; an empty hash is the experiments page, anything unknown is `notFound`. */
export const parseRoute = (hash: string): Route => {
  const path = hash.replace(/^#/, "").replace(/^\/+/, "").replace(/\/+$/, "")
  const [head = "", second, ...rest] = path.split("/")
  if (rest.length > 0) return { page: "notFound", hash }
  if (second === undefined) {
    if (head === "" || head === "experiments") return { page: "experiments" }
    if (head === "login" || head === "jobs" || head === "queues") return { page: head }
    return { page: "notFound", hash }
  }
  const n = id(second)
  if (n !== undefined && head === "experiments") return { page: "experiment", id: n }
  if (n !== undefined && head === "jobs") return { page: "job", id: n }
  return { page: "notFound", hash }
}

/** The location hash of a page. */
export const routeHash = (route: Route): string => {
  switch (route.page) {
    case "experiment":
      return `#/experiments/${route.id}`
    case "job":
      return `#/jobs/${route.id}`
    case "notFound":
      return route.hash
    default:
      return `#/${route.page}`
  }
}
