import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'

/**
 * Another connection to `file`, in a thread of its own, takes its write lock and holds it for `ms`
 * (as the checkpointer's RESTART does while it waits for readers); resolves once it is held.
 */
export function holdWriteLock(file: string, ms: number): Promise<void> {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(
    `
    const { workerData, parentPort } = require('node:worker_threads')
    const db = new (require(workerData.driver))(workerData.file)
    db.exec('BEGIN IMMEDIATE')
    parentPort.postMessage('held')
    const until = Date.now() + workerData.ms
    while (Date.now() < until) {}
    db.exec('COMMIT'); db.close()
  `,
    { eval: true, workerData: { file, ms, driver } },
  )
  return new Promise((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
}
