import { createHash, randomBytes } from 'node:crypto'
import bs58 from 'bs58'
import { BaseError } from '../../src/errors/index.js'
import type { MetaStore } from './meta-store.js'

/**
 * The cluster's clock facts are read, never guessed: a value that is not what was written
 * refuses the start (a clock from NaN would hand out slots and times from nowhere).
 */
const unreadable = (key: string, value: string) =>
  new BaseError(
    'STORE_UNREADABLE',
    `the embedded Solana cluster's clock in parx.db cannot be read (solana_meta '${key}' is ` +
      `'${value.slice(0, 24)}', not what parx writes); restore parx.db from a backup, or start over with --fresh`,
  )
function whole(key: string, value: string): number {
  if (!/^\d{1,16}$/.test(value)) throw unreadable(key, value)
  return Number(value)
}

export type ChainClockOptions = {
  /** Wall-clock milliseconds per slot. Default 400, like mainnet. */
  slotMs?: number
  /** Block heights a blockhash stays usable after the one it was issued at. Default 150, like a cluster. */
  blockhashValidity?: number
  /** Wall clock in ms; tests pass their own. */
  now?: () => number
}

// A fresh cluster starts here rather than at 0 so a full window of earlier blockhashes exists
// from the first moment (our own transactions pick among them to keep signatures distinct).
// Its unix time is the genesis wall time: slots before it have no blocks.
export const FIRST_SLOT = 1000

export type LatestBlockhash = { slot: number; blockhash: string; lastValidBlockHeight: number }

/**
 * Slots, block heights, unix time and blockhashes of the embedded cluster, derived from wall time
 * since the cluster's genesis (kept in the store), so they keep advancing across restarts like a
 * real cluster's. Every slot produces a block (block height = slot). A slot's blockhash is
 * sha256(seed ‖ slot): nothing to persist, and a restart recognises the hashes it handed out.
 *
 * Unix time is wall time: FIRST_SLOT is the genesis instant and each slot adds `slotMs`, so the
 * Clock sysvar, blockTime and every deadline built from them (cross-chain fillDeadline/expires)
 * agree with the integrator's clock. Only `advance()` (a test hook) moves it ahead of wall time.
 * Releases before 0.4 counted unix time from slot 0, FIRST_SLOT slots (400 s) ahead: a cluster
 * made by one keeps those times for the slots it had used (`legacy_until_slot`) and from then on
 * holds its clock still until wall time catches up, so time never goes back.
 */
export class ChainClock {
  readonly slotMs: number
  readonly validity: number
  private readonly now: () => number
  private readonly genesisMs: number
  private readonly seed: Buffer
  private offset: number
  private floor: number
  /** Slots below this were timed by the pre-0.4 rule (0 on a cluster made since). */
  private readonly legacyUntil: number
  private readonly slotsByHash = new Map<string, number>()
  private readonly hashesBySlot = new Map<number, string>()

  /** `minSlot`: the highest slot already used (e.g. by a recorded transaction); time never goes back. */
  constructor(
    private readonly meta: MetaStore,
    options: ChainClockOptions = {},
    minSlot = 0,
  ) {
    this.slotMs = options.slotMs ?? 400
    this.validity = options.blockhashValidity ?? 150
    this.now = options.now ?? Date.now
    const existing = meta.get('genesis_ms') !== undefined
    this.genesisMs = whole(
      'genesis_ms',
      meta.getOrCreate('genesis_ms', () => String(this.now())),
    )
    const seed = meta.getOrCreate('blockhash_seed', () => randomBytes(32).toString('hex'))
    if (!/^[0-9a-f]{64}$/.test(seed)) throw unreadable('blockhash_seed', seed)
    this.seed = Buffer.from(seed, 'hex')
    this.offset = whole('slot_offset', meta.get('slot_offset') ?? String(FIRST_SLOT))
    this.floor = minSlot
    // A cluster made before wall-clock time keeps the times it handed out up to now.
    this.legacyUntil = whole(
      'legacy_until_slot',
      meta.getOrCreate('legacy_until_slot', () => String(existing ? this.slot() + 1 : 0)),
    )
  }

  /** The current slot: never lower than one already reported, even if the wall clock steps back. */
  slot(): number {
    const wall = Math.floor((this.now() - this.genesisMs) / this.slotMs) + this.offset
    if (wall > this.floor) this.floor = wall
    return this.floor
  }

  blockHeight(slot = this.slot()): number {
    return slot
  }

  /** The Clock sysvar's unix_timestamp and a transaction's blockTime at `slot`: wall time, to the second. */
  unixTimestamp(slot: number): number {
    const legacy = (s: number) => Math.floor((this.genesisMs + s * this.slotMs) / 1000)
    if (slot < this.legacyUntil) return legacy(slot)
    const wall = Math.floor((this.genesisMs + (slot - FIRST_SLOT) * this.slotMs) / 1000)
    return this.legacyUntil > 0 ? Math.max(wall, legacy(this.legacyUntil)) : wall
  }

  /** The cluster's first block (genesis); older slots have none. */
  firstSlot(): number {
    return FIRST_SLOT
  }

  blockhash(slot: number): string {
    const cached = this.hashesBySlot.get(slot)
    if (cached) return cached
    const le = Buffer.alloc(8)
    le.writeBigUInt64LE(BigInt(slot))
    return bs58.encode(createHash('sha256').update(this.seed).update(le).digest())
  }

  latest(): LatestBlockhash {
    const slot = this.slot()
    return { slot, blockhash: this.blockhash(slot), lastValidBlockHeight: this.blockHeight(slot) + this.validity }
  }

  /** The slot a still-valid blockhash was issued at; undefined once expired (or never ours). */
  blockhashSlot(blockhash: string): number | undefined {
    this.refreshWindow()
    return this.slotsByHash.get(blockhash)
  }

  isBlockhashValid(blockhash: string): boolean {
    return this.blockhashSlot(blockhash) !== undefined
  }

  /** Valid blockhashes, newest first (to give our own transactions distinct signatures). */
  *validBlockhashes(): Generator<{ slot: number; blockhash: string }> {
    const current = this.slot()
    for (let s = current; s >= Math.max(0, current - this.validity); s--)
      yield { slot: s, blockhash: this.blockhash(s) }
  }

  /**
   * Moves the cluster `slots` ahead (slot, block height and unix time together), so tests can
   * expire blockhashes or reach a deadline without waiting. Persisted: time never goes back.
   */
  advance(slots: number): void {
    this.offset += slots
    this.meta.set('slot_offset', String(this.offset))
  }

  private refreshWindow(): void {
    const current = this.slot()
    const lowest = Math.max(0, current - this.validity)
    for (const [slot, hash] of this.hashesBySlot) {
      if (slot >= lowest) continue
      this.hashesBySlot.delete(slot)
      this.slotsByHash.delete(hash)
    }
    for (let s = lowest; s <= current; s++) {
      if (this.hashesBySlot.has(s)) continue
      const hash = this.blockhash(s)
      this.hashesBySlot.set(s, hash)
      this.slotsByHash.set(hash, s)
    }
  }
}
