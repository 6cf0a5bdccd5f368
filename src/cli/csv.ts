/**
 * RFC 4180 CSV for `--output csv`: a header row, then one row per record; a field is quoted when
 * it holds a comma, a quote or a line break. A field that a spreadsheet would run as a formula
 * (starting with = + - @, a tab or a carriage return) is prefixed with `'`: a seller's error text
 * or host is data, and must not become a formula in whoever opens the report.
 */
export function csvLines(
  header: readonly string[],
  rows: readonly (readonly (string | number | null | undefined)[])[],
): string[] {
  return [header, ...rows].map((r) => r.map(csvField).join(','))
}

export function csvField(v: string | number | null | undefined): string {
  if (v === null || v === undefined) return ''
  let s = String(v)
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s
}
