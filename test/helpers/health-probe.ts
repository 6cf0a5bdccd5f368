import { Worker } from 'node:worker_threads'

// Runs in its own thread, so the latencies it sees are the daemon's, not the fuzzing client's.
const source = `
const { parentPort, workerData } = require('node:worker_threads')
const samples = []
let running = true
parentPort.on('message', () => { running = false })
;(async () => {
  while (running) {
    const t0 = performance.now()
    try {
      const res = await fetch(workerData.url)
      await res.arrayBuffer()
      samples.push(res.status === 200 ? performance.now() - t0 : -1)
    } catch {
      samples.push(-1)
    }
    await new Promise((r) => setTimeout(r, workerData.everyMs))
  }
  parentPort.postMessage(samples)
})()
`

/** Polls `url` from a worker thread until stopped; resolves with every latency in ms (-1: a failure). */
export function healthProbe(url: string, everyMs = 20) {
  const worker = new Worker(source, { eval: true, workerData: { url, everyMs } })
  return {
    stop: () =>
      new Promise<number[]>((resolve, reject) => {
        worker.once('message', (samples: number[]) => {
          void worker.terminate()
          resolve(samples)
        })
        worker.once('error', reject)
        worker.postMessage('stop')
      }),
  }
}

export function p99(samples: number[]): number {
  const s = samples.filter((x) => x >= 0).sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(0.99 * s.length))] ?? NaN
}
