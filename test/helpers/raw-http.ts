import { connect } from 'node:net'

export type RawAnswer = { status: number; headers: Record<string, string>; body: string }

/** One HTTP answer from the bytes read so far, or undefined while it is incomplete. */
function parseAnswer(data: string, closed: boolean): RawAnswer | undefined {
  const end = data.indexOf('\r\n\r\n')
  if (end < 0) return closed ? { status: 0, headers: {}, body: '' } : undefined
  const [statusLine = '', ...lines] = data.slice(0, end).split('\r\n')
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  )
  const status = Number(statusLine.split(' ')[1] ?? 0)
  let rest = data.slice(end + 4)
  if (headers['content-length'] !== undefined) {
    const n = Number(headers['content-length'])
    return rest.length >= n
      ? { status, headers, body: rest.slice(0, n) }
      : closed
        ? { status, headers, body: rest }
        : undefined
  }
  if (headers['transfer-encoding'] === 'chunked') {
    let body = ''
    for (;;) {
      const lineEnd = rest.indexOf('\r\n')
      if (lineEnd < 0) return closed ? { status, headers, body } : undefined
      const size = parseInt(rest.slice(0, lineEnd), 16)
      if (size === 0) return { status, headers, body }
      if (rest.length < lineEnd + 2 + size + 2) return closed ? { status, headers, body } : undefined
      body += rest.slice(lineEnd + 2, lineEnd + 2 + size)
      rest = rest.slice(lineEnd + 2 + size + 2)
    }
  }
  return closed ? { status, headers, body: rest } : undefined
}

/**
 * Writes bytes to a server as they are and reads one HTTP answer: the way to send what `fetch`
 * refuses to (unknown methods, broken chunking, oversized headers, a malformed Host).
 */
export function rawHttp(url: string, bytes: string | Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let data = ''
    let done = false
    const finish = (closed: boolean) => {
      if (done) return
      const answer = parseAnswer(data, closed)
      if (!answer) return
      done = true
      socket.destroy()
      resolve(answer)
    }
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => {
      data += d
      finish(false)
    })
    socket.on('error', (e) => (data ? finish(true) : reject(e)))
    socket.on('close', () => finish(true))
    socket.write(bytes)
  })
}
