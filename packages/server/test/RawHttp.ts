// HTTP/1.1 written and read on a raw socket: for requests no client library sends (malformed lines, CONNECT,
// TRACE), and for reading an answer's bytes as they came.
import { connect } from "node:net"

/** Writes `raw` on a fresh connection and resolves to everything the service sent until it closed. */
export const rawExchange = (url: string, raw: string | Uint8Array, more?: Uint8Array): Promise<string> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url)
    const socket = connect({ host: hostname, port: Number(port) })
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk: Buffer) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("close", () => resolve(Buffer.concat(chunks).toString("utf8")))
    socket.write(raw)
    if (more !== undefined) socket.write(more)
  })

/** The status of a raw HTTP/1.1 answer (NaN when it is none). */
export const statusOf = (answer: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1])

/** The body of a raw HTTP/1.1 answer, as text. */
export const bodyOf = (answer: string): string => answer.slice(answer.indexOf("\r\n\r\n") + 4)

/** A header of a raw HTTP/1.1 answer, undefined when absent. */
export const headerOf = (answer: string, name: string): string | undefined =>
  answer
    .slice(0, answer.indexOf("\r\n\r\n"))
    .split("\r\n")
    .find((line) => line.toLowerCase().startsWith(`${name}:`))
    ?.slice(name.length + 1)
    .trim()
