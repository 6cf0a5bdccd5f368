import parsePrometheusTextFormat, { type ParsedFamily } from 'parse-prometheus-text-format'

export type Sample = { labels: Record<string, string>; value: number }

/**
 * A scrape read with a Prometheus text-format parser (parse-prometheus-text-format): the families
 * with their types, and every sample by its series name. The parser folds a histogram's series
 * into one object without their labels (it was written for unlabelled ones), so samples are read
 * in a second pass with the `# HELP`/`# TYPE` lines left out, where each `_bucket`, `_sum` and
 * `_count` line is a sample of its own with its labels.
 */
export function parseScrape(text: string): { families: Map<string, ParsedFamily>; samples(name: string): Sample[] } {
  const families = new Map(parsePrometheusTextFormat(text).map((f) => [f.name, f]))
  const bare = parsePrometheusTextFormat(
    text
      .split('\n')
      .filter((l) => !l.startsWith('#'))
      .join('\n'),
  )
  const byName = new Map<string, Sample[]>()
  for (const f of bare) {
    const list = byName.get(f.name) ?? []
    for (const m of f.metrics) list.push({ labels: m.labels ?? {}, value: Number(m.value) })
    byName.set(f.name, list)
  }
  return { families, samples: (name) => byName.get(name) ?? [] }
}
