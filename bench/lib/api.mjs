// The job service's API as a bench calls it: one bearer token, JSON in and out, any answer but 200 a
// thrown error (a bench that measures failures measures nothing).

/** A caller of `<url>/api/v1` with `token`: `(url, method, path, body?) => the JSON answer`. */
export const apiCaller = (token) => async (url, method, path, body) => {
  const response = await fetch(`${url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body)
  })
  const json = await response.json()
  if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${JSON.stringify(json)}`)
  return json
}
