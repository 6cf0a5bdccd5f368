/**
 * The process exit codes of `parx`, for scripts and agents to branch on. Published: never renumber.
 * The exit-code table of docs/cli.md is checked against this list (src/errors/codes.test.ts); each error code names its
 * exit in src/errors/codes.ts.
 */
export const exitCodes = {
  ok: 0,
  /** Anything not listed below. */
  failure: 1,
  /** Bad flags or arguments, or a required value missing without a terminal to ask on. */
  usage: 2,
  /** The service answered 4xx: the request was rejected (the message says why). */
  rejected: 3,
  /** Missing, invalid or revoked key or token. */
  auth: 4,
  /** The daemon or platform did not answer, or something that is not parx answered. */
  unreachable: 5,
  /** The agent, endpoint, key or route does not exist. */
  notFound: 6,
  /** A spending or size limit refused the amount. */
  limitExceeded: 7,
  /** The payment was refused (by the seller, the facilitator or on chain); nothing was paid. */
  paymentRefused: 8,
  /** The agent is frozen by its owner (AGENT_FROZEN): nothing was signed; only the owner can unfreeze it. */
  agentFrozen: 9,
  /**
   * `parx receipt verify`: a receipt is not one the expected key signed as it reads (a field was changed, or another
   * key signed it), or not a receipt at all.
   */
  receiptInvalid: 10,
  /**
   * The amount is above the agent's approval threshold (APPROVAL_REQUIRED): held, nothing signed; the owner approves,
   * then pay again with the approval id.
   */
  approvalRequired: 11,
  /** The user cancelled (Ctrl-C at a prompt, or on `parx serve`). */
  cancelled: 130,
} as const

export type ExitCode = (typeof exitCodes)[keyof typeof exitCodes]

/** One line per exit code, as docs/cli.md documents them. */
export const exitCodeMeanings: Record<ExitCode, string> = {
  0: 'ok',
  1: 'failure not listed below',
  2: 'usage: a bad flag or argument, or a required value missing without a terminal',
  3: 'rejected by the service (the message and `code` say why)',
  4: 'auth: key or token missing, wrong or revoked',
  5: 'daemon or platform unreachable, or the URL is not a parx service',
  6: 'not found',
  7: 'limit exceeded (spending or size limit)',
  8: 'payment refused; nothing was paid',
  9: 'agent frozen by its owner; nothing was signed',
  10: 'receipt invalid: changed, signed by another key, or not a receipt (`parx receipt verify`)',
  11: 'approval required: held for the owner (approvalId); nothing was signed',
  130: 'cancelled (Ctrl-C)',
}
