import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, describe, expect, it } from 'vitest'
import { capLogSize } from './log-rotation.js'

let dir: string
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const flushed = (dest: pino.DestinationStream & { flush(cb: (e?: Error) => void): void }) => new Promise<void>((resolve, reject) => dest.flush((e) => (e ? reject(e) : resolve())))

describe('capLogSize', () => {
  for (const sync of [true, false]) {
    it(`keeps parx.log and its rotated files under the cap however much is written (${sync ? 'sync' : 'async'} destination)`, async () => {
      dir = mkdtempSync(join(tmpdir(), 'parx-log-'))
      const path = join(dir, 'parx.log')
      const dest = pino.destination({ dest: path, sync })
      await new Promise((r) => (sync ? r(undefined) : dest.once('ready', r)))
      capLogSize(dest, path, { maxBytes: 20_000, keep: 2 })
      const log = pino({ level: 'info' }, dest)
      // As a daemon writes: bursts of lines with the event loop turning between them.
      for (let i = 0; i < 5_000; i++) {
        log.info({ i, pad: 'x'.repeat(60) }, 'a line')
        if (i % 20 === 0) await new Promise((r) => setImmediate(r))
      }
      await flushed(dest)
      // sonic-boom's flush does not wait for a reopen still in progress; its lines follow it at once.
      if (!sync) await new Promise((r) => setTimeout(r, 200))
      const files = readdirSync(dir).sort()
      expect(files).toEqual(['parx.log', 'parx.log.1', 'parx.log.2'])
      // Sync: at most one line past the cap. Async: the lines written while the new file is being
      // opened land in it too (bounded by what the daemon writes in that moment), so a file may pass
      // the cap by that much; the total stays bounded either way.
      const line = readFileSync(`${path}.1`, 'utf8').split('\n')[0]!.length + 1
      // How far an async file passes the cap is what sonic-boom held in its buffer at the rotation,
      // which grows when the disk write lags (a loaded machine: 74 KB was seen against a 20 KB cap).
      // Uncapped, this run writes ~500 KB into one file; the bound below still fails that.
      const bound = sync ? 20_000 + line : 5 * 20_000
      for (const f of files) expect(statSync(join(dir, f)).size).toBeLessThanOrEqual(bound)
      expect(existsSync(`${path}.3`)).toBe(false)
      // Nothing lost at a rotation: the kept files hold the last lines, in order, without a gap.
      const kept = ['parx.log.2', 'parx.log.1', 'parx.log'].flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n').filter(Boolean)).map((l) => (JSON.parse(l) as { i: number }).i)
      expect(kept.at(-1)).toBe(4_999)
      expect(kept).toEqual(kept.map((_, k) => kept[0]! + k))
      dest.end()
    })
  }
})
