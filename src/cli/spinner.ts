export type SpinnerStream = { isTTY?: boolean; columns?: number; write(s: string): unknown }

export type Spinner = {
  update(text: string): void
  succeed(text: string): void
  fail(text: string): void
  stop(): void
}

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏']

/**
 * A spinner on stderr while a command waits. It draws only on a terminal that has a width: under a
 * pipe, a dumb terminal or a zero-width pseudo-terminal nothing is drawn (no cursor codes) and only
 * the final line is printed. Each frame is one bounded line (`\r`, text cut to the width, erase to end).
 */
export function startSpinner(
  text: string,
  opts: { stream: SpinnerStream; enabled: boolean; paint?: { green(s: string): string; red(s: string): string } },
): Spinner {
  const { stream } = opts
  const width = stream.columns ?? 0
  const draws = opts.enabled && stream.isTTY === true && width > 2
  let current = text
  let i = 0
  const draw = () => stream.write(`\r${frames[i++ % frames.length]} ${current}`.slice(0, width - 1) + '\x1b[K')
  const timer = draws ? setInterval(draw, 80) : undefined
  timer?.unref()
  if (draws) draw()
  const end = (line?: string) => {
    if (timer) clearInterval(timer)
    if (draws) stream.write('\r\x1b[K')
    if (line !== undefined) stream.write(`${line}\n`)
  }
  return {
    update: (t) => void (current = t),
    succeed: (t) => end(`${opts.paint?.green('✔') ?? '✔'} ${t}`),
    fail: (t) => end(`${opts.paint?.red('✖') ?? '✖'} ${t}`),
    stop: () => end(),
  }
}
