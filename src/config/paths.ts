import { join } from 'node:path'

/** Files inside a data dir. The daemon writes them; the CLI reads the local operator token from keys.json. */
export const keyFilePath = (dataDir: string) => join(dataDir, 'keys.json')
export const storePath = (dataDir: string) => join(dataDir, 'parx.db')
export const logPath = (dataDir: string) => join(dataDir, 'parx.log')
