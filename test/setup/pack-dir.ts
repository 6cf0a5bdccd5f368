import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TestProject } from 'vitest/node'

/**
 * globalSetup: an empty directory for this run's one `npm pack` (test/helpers/pack.ts packs into it
 * on first use, so a run without the packing tests costs only a mkdir), removed at the end.
 */
export default function setup(project: TestProject): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'parx-pack-'))
  project.provide('parxPackDir', dir)
  return () => rmSync(dir, { recursive: true, force: true })
}
