import { readFileSync } from 'node:fs'
import WebSocket from 'ws'

/** The node flag that lets `heapProbe` reach a daemon: its inspector on a free loopback port. */
export const INSPECT_FLAG = '--inspect=127.0.0.1:0'

const rssMiB = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024

/**
 * What a process holds once its garbage is collected: V8's used heap and the resident set, both
 * after a full collection asked over its inspector (`stderr` names the inspector's URL). Without the
 * collection a reading mixes live data with garbage V8 has not collected yet (its old generation
 * grows by tens of MiB before the first major GC), so only this tells a leak from a lazy collector.
 */
export async function heapProbe(pid: number, stderr: () => string) {
  const url = /Debugger listening on (ws:\/\/\S+)/.exec(stderr())?.[1]
  if (!url)
    throw new Error(
      `no inspector URL on the daemon's stderr (started with ${INSPECT_FLAG}?): ${stderr().slice(0, 300)}`,
    )
  const ws = new WebSocket(url)
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  let id = 0
  const pending = new Map<number, (r: any) => void>()
  ws.on('message', (m) => {
    const msg = JSON.parse(String(m))
    pending.get(msg.id)?.(msg)
    pending.delete(msg.id)
  })
  const call = (method: string) =>
    new Promise<any>((resolve, reject) => {
      const n = ++id
      pending.set(n, (msg) => (msg.error ? reject(new Error(`${method}: ${msg.error.message}`)) : resolve(msg.result)))
      ws.send(JSON.stringify({ id: n, method }))
    })
  return {
    /** MiB after a full collection (twice: the first may leave what finalizers release). */
    async settled(): Promise<{ heapMiB: number; rssMiB: number }> {
      await call('HeapProfiler.collectGarbage')
      await call('HeapProfiler.collectGarbage')
      const { usedSize } = await call('Runtime.getHeapUsage')
      return { heapMiB: usedSize / 2 ** 20, rssMiB: rssMiB(pid) }
    },
    close: () => ws.close(),
  }
}
