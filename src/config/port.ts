import { InvalidArgumentError } from 'commander'

/** `--port`: a whole number from 0 to 65535 (0 picks a free one); anything else is a usage error. */
export function parsePortFlag(value: string): string {
  if (!/^\d{1,5}$/.test(value) || Number(value) > 65535) {
    throw new InvalidArgumentError('the port must be a whole number from 0 to 65535 (0 picks a free one).')
  }
  return value
}
