import { randomBytes } from 'node:crypto'

// Drawn from 4 KiB of random bytes at a time: one call into the system's generator per request
// (a request id, a swap's memo tag) cost as much as the rest of that id's handling (the sol bench's profile).
let pool = Buffer.alloc(0)
let taken = 0

/** `bytes` random bytes (at most 4,096) as hex, from the process's pool. */
export function randomHex(bytes: number): string {
  if (taken + bytes > pool.length) {
    pool = randomBytes(4096)
    taken = 0
  }
  taken += bytes
  return pool.toString('hex', taken - bytes, taken)
}
