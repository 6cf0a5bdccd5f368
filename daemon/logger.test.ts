import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { openLog } from './logger.js'

const dir = mkdtempSync(join(tmpdir(), 'parx-logger-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

it('close writes what was logged, takes its exit hook off process, and drops a later line instead of throwing it at the caller', async () => {
  const exitHooks = process.listenerCount('exit')
  const { log, close } = openLog(dir, 'info')
  log.info('before the stop')
  await close()
  expect(process.listenerCount('exit')).toBe(exitHooks)
  // A callback finishing after the daemon stopped (sonic-boom throws on a closed file).
  expect(() => log.warn('after the stop')).not.toThrow()
  const text = readFileSync(join(dir, 'parx.log'), 'utf8')
  expect(text).toContain('"before the stop"')
  expect(text).not.toContain('after the stop')
})
