/**
 * A label whose values come from requests (a payment's network or scheme) is kept to the first
 * `max` distinct values seen; later ones are reported as `other`. Prometheus keeps one series per
 * label value, so a caller sending made-up networks must not grow the scrape without bound.
 */
export function boundedLabel(max = 32): (value: string | undefined) => string {
  const seen = new Set<string>()
  return (value) => {
    if (!value) return 'none'
    if (seen.has(value)) return value
    if (seen.size >= max) return 'other'
    seen.add(value)
    return value
  }
}
