import { readFileSync } from 'node:fs'

/** The head block an embedded chain's state file (`chains/<network>.json`) holds. */
export const stateHead = (path: string) => Number(JSON.parse(readFileSync(path, 'utf8')).best_block_number)
