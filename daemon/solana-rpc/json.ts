/**
 * JSON.stringify that writes bigints as bare JSON numbers: lamports and token supplies are u64,
 * and a Solana node writes them as numbers, beyond 2^53 too.
 */
export function stringifyJson(value: unknown): string {
  return write(value) ?? 'null'
}

function write(value: unknown): string | undefined {
  if (typeof value === 'bigint') return value.toString()
  if (value === null || typeof value !== 'object') return JSON.stringify(value)
  const withToJson = value as { toJSON?: () => unknown }
  if (typeof withToJson.toJSON === 'function') return write(withToJson.toJSON())
  if (Array.isArray(value)) return `[${value.map((v) => write(v) ?? 'null').join(',')}]`
  const fields: string[] = []
  for (const [k, v] of Object.entries(value)) {
    const s = write(v)
    if (s !== undefined) fields.push(`${JSON.stringify(k)}:${s}`)
  }
  return `{${fields.join(',')}}`
}
