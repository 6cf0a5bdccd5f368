/** The process exit codes of `parx`, for scripts and agents to branch on. */
export const exitCodes = {
  ok: 0,
  /** Anything not listed below. */
  failure: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** The service answered 4xx: the request was rejected (the message says why). */
  rejected: 3,
  /** Missing or invalid key / token. */
  auth: 4,
  /** The daemon or platform did not answer. */
  unreachable: 5,
  /** The user cancelled (Ctrl-C at a prompt). */
  cancelled: 130,
} as const
