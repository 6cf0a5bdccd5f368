import { type ExitCode, exitCodes } from './exit-codes.js'

/**
 * Every error code of parx: its HTTP status when the service answers it, and the exit code of the
 * CLI when it meets it (answered by a service, or found by the CLI or the SDK itself). A code the
 * service never answers has status null. Codes are published API: never rename or reuse one; add
 * new ones at the end of their group. The error table of docs/errors.md is checked against this
 * list (test/readme.test.ts).
 */
export const errorCodes = {
  // request shape
  BAD_REQUEST: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'a field is missing, malformed, or disagrees with another field',
  },
  MALFORMED_JSON: { status: 400, exit: exitCodes.rejected, meaning: 'the body is not valid JSON' },
  PAYLOAD_TOO_LARGE: { status: 413, exit: exitCodes.rejected, meaning: 'the body is larger than the route accepts' },
  NOT_FOUND: { status: 404, exit: exitCodes.notFound, meaning: 'no such route or resource' },
  EXPECTATION_FAILED: {
    status: 417,
    exit: exitCodes.rejected,
    meaning: 'the Expect header asks for something other than 100-continue',
  },
  HEADERS_TOO_LARGE: {
    status: 431,
    exit: exitCodes.rejected,
    meaning: 'the request line or headers are larger than the server accepts',
  },
  REQUEST_TIMEOUT: { status: 408, exit: exitCodes.rejected, meaning: 'the request was not received in time' },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    exit: exitCodes.rejected,
    meaning: 'the route reads a JSON body and the Content-Type is not application/json (or another +json type)',
  },
  // auth
  UNAUTHORIZED: { status: 401, exit: exitCodes.auth, meaning: 'partner key or operator token missing or invalid' },
  // swaps
  ORDER_MISMATCH: { status: 400, exit: exitCodes.rejected, meaning: 'a signed order field disagrees with the request' },
  AMOUNT_MISMATCH: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'uiAmount does not equal order.inputAmount at the token decimals',
  },
  UNKNOWN_TOKEN: { status: 400, exit: exitCodes.rejected, meaning: 'the symbol is not in the network registry' },
  UNSUPPORTED_PAIR: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'the route does not swap this input for this output',
  },
  DEADLINE_EXPIRED: { status: 400, exit: exitCodes.rejected, meaning: 'the order deadline has passed: re-sign' },
  NONCE_MISMATCH: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'order.nonce is not the router nonce of the user: re-sign',
  },
  INVALID_SIGNATURE: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'a signature does not recover to the expected signer',
  },
  INVENTORY_SHORT: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'solver inventory or router allowance is below the amount',
  },
  INSUFFICIENT_BALANCE: { status: 400, exit: exitCodes.rejected, meaning: 'the user holds less than the input amount' },
  AMOUNT_TOO_LARGE: {
    status: 400,
    exit: exitCodes.limitExceeded,
    meaning: 'the amount exceeds the per-swap size limit of the route',
  },
  SLIPPAGE_TOO_HIGH: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'the quote would exceed slippageBpsMax: reduce size and re-quote',
  },
  SIMULATION_FAILED: {
    status: 422,
    exit: exitCodes.rejected,
    meaning: 'the transaction reverts in simulation; the reason is in the message',
  },
  FLOW_DISABLED: {
    status: 403,
    exit: exitCodes.rejected,
    meaning: 'the flow is disabled for this route (see /api/capabilities)',
  },
  RATE_LIMITED: {
    status: 429,
    exit: exitCodes.rejected,
    meaning: 'too many requests from this client: slow down and retry',
  },
  QUOTE_STALE: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'the pool now pays less than the signed minOutputAmount: re-quote and re-sign',
  },
  // local profile
  PROFILE_ONLY: {
    status: 404,
    exit: exitCodes.rejected,
    meaning: 'the route exists only on another profile (e.g. the faucet on local)',
  },
  AMOUNT_OUT_OF_RANGE: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'the amount is more than the token can hold (uint256 on EVM, u64 on Solana)',
  },
  // dependencies
  CHAIN_UNAVAILABLE: { status: 503, exit: exitCodes.failure, meaning: 'a chain RPC did not answer; retry shortly' },
  KEY_STORE_UNAVAILABLE: {
    status: 503,
    exit: exitCodes.failure,
    meaning: 'the key store cannot be read and no recent verdict exists; retry shortly',
  },
  STORE_UNAVAILABLE: {
    status: 503,
    exit: exitCodes.failure,
    meaning: 'the store (database) cannot be reached; retry shortly',
  },
  WALLET_KEY_UNAVAILABLE: {
    status: 503,
    exit: exitCodes.failure,
    meaning:
      'a wallet was sealed under a platform key this replica does not hold: the operator gives every ' +
      'replica the same keys.platformWallet (and keys.platformWalletPrevious); nothing was signed',
  },
  RELAY_FAILED: {
    status: 502,
    exit: exitCodes.failure,
    meaning: 'the transaction could not be relayed; nothing was spent',
  },
  INTERNAL: { status: 500, exit: exitCodes.failure, meaning: 'a bug on our side; the log has the details' },
  CONFIG_INVALID: {
    status: 500,
    exit: exitCodes.failure,
    meaning: 'the daemon refused to start: the message lists every setting to fix',
  },
  // agent payments platform (docs/platform-api.md)
  FORBIDDEN: {
    status: 403,
    exit: exitCodes.auth,
    meaning: 'the key is valid but may not do this (an agent key on a user route, or on another agent)',
  },
  ALREADY_EXISTS: {
    status: 409,
    exit: exitCodes.rejected,
    meaning: 'the resource exists already (e.g. a user for this wallet)',
  },
  LIMIT_EXCEEDED: {
    status: 403,
    exit: exitCodes.limitExceeded,
    meaning: 'a spending limit of the agent refuses the amount; the body has limit, amountUsd and remainingUsd',
  },
  NETWORK_UNSUPPORTED: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'the network is not in the registry or does not offer this (e.g. swap off Base)',
  },
  PRICE_ABOVE_MAX: {
    status: 409,
    exit: exitCodes.limitExceeded,
    meaning: "the seller's price is above maxAmount; nothing was paid",
  },
  SELLER_TERMS_MALFORMED: {
    status: 502,
    exit: exitCodes.paymentRefused,
    meaning: 'the seller answered 402 with terms that cannot be read; nothing was paid',
  },
  SELLER_METHOD_UNSUPPORTED: {
    status: 422,
    exit: exitCodes.paymentRefused,
    meaning: "no payment method the seller offers is payable on the agent's network and tokens; nothing was paid",
  },
  PAYMENT_REFUSED: {
    status: 502,
    exit: exitCodes.paymentRefused,
    meaning: 'the seller refused the signed payment; the body says whether anything was charged',
  },
  SELLER_FAILED: {
    status: 502,
    exit: exitCodes.paymentRefused,
    meaning: 'the seller failed or timed out; the body says whether anything was charged',
  },
  BUNDLER_UNAVAILABLE: {
    status: 503,
    exit: exitCodes.failure,
    meaning: 'the ERC-4337 bundler did not answer; nothing was spent, retry shortly',
  },
  SEND_PENDING: {
    status: 504,
    exit: exitCodes.failure,
    meaning:
      'the bundler took the user operation and did not answer; it may still be included, and the amount ' +
      'stays reserved until the chain decides (the send then shows in payments as confirmed or released)',
  },
  EGRESS_REFUSED: {
    status: 403,
    exit: exitCodes.rejected,
    meaning:
      'the URL resolves to an address the platform does not fetch for ' +
      'users (loopback, private, link-local...); nothing was sent or paid',
  },
  QUOTA_EXCEEDED: {
    status: 403,
    exit: exitCodes.rejected,
    meaning:
      'a per-user quota (agents, endpoints, webhooks, keys, pay ' +
      'calls in flight) is reached; the body has quota, limit and used',
  },
  CHANNEL_TERMS_REFUSED: {
    status: 502,
    exit: exitCodes.failure,
    meaning:
      "the seller's batch-settlement offer names a contract, network, token domain, " +
      'authorizer or deposit the platform does not pay into; nothing was paid',
  },
  CHANNEL_TERMS_CHANGED: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      "the seller's batch-settlement terms (withdraw delay, receiver authorizer...) " +
      "changed while the agent's channel to it still holds a deposit: one channel per " +
      'seller, network and token, so nothing was paid; refund or withdraw that channel first',
  },
  AUTH_CAPTURE_TERMS_REFUSED: {
    status: 502,
    exit: exitCodes.failure,
    meaning:
      "the seller's auth-capture offer asks a hold the platform does not sign (a capture deadline " +
      'beyond 7 days, a refund deadline beyond 30 days, deadlines out of order, fee bounds that ' +
      'are not basis points) and nothing else offered was payable; nothing was signed or paid',
  },
  CHANNEL_REFUND_REFUSED: {
    status: 502,
    exit: exitCodes.failure,
    meaning:
      "the seller did not refund the channel's unspent deposit; " +
      "nothing moved (withdraw after the channel's delay instead)",
  },
  CHANNEL_WITHDRAW_PENDING: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      'a withdrawal of the channel is under way: it can be finalized only from ' +
      'the time the error names, and no voucher is signed on the channel meanwhile',
  },
  NOTHING_TO_WITHDRAW: {
    status: 409,
    exit: exitCodes.rejected,
    meaning: 'the channel holds nothing unclaimed to withdraw; nothing was sent',
  },
  BATCH_AUTHORIZER_NOT_CONFIGURED: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      'a batch-settlement endpoint needs a receiver authorizer parx holds, and this deployment has ' +
      'none: set PARX_BATCH_RECEIVER_AUTHORIZER_KEY (keys.batchReceiverAuthorizer) on every replica',
  },
  AGENT_FROZEN: {
    status: 423,
    exit: exitCodes.agentFrozen,
    meaning:
      "the agent's owner froze it: no pay, send, swap or channel deposit is " +
      'signed until it is unfrozen; what was signed before follows its course',
  },
  APPROVAL_REQUIRED: {
    status: 403,
    exit: exitCodes.approvalRequired,
    meaning:
      "the amount is above the agent's approveAboveUsd: the request is held as a pending approval " +
      '(approvalId, expiresAt) and nothing was signed; send it again with approvalId once the owner approved it',
  },
  APPROVAL_NOT_PENDING: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      'the approval was already approved, denied, used or has expired: it cannot be decided now (the body has state)',
  },
  APPROVAL_NOT_USABLE: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      'the approvalId sent was denied, has expired, was used already or was ' +
      'given for another request; nothing was signed (the body has state)',
  },
  AUTH_CAPTURE_AUTHORIZER_NOT_CONFIGURED: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      "an auth-capture offer needs the facilitator's receiver authorizer (it consents " +
      "to the seller's capture, void and refund), and this facilitator advertises " +
      'none: set PARX_BATCH_RECEIVER_AUTHORIZER_KEY (keys.batchReceiverAuthorizer)',
  },
  HOLD_NOT_FOUND: {
    status: 404,
    exit: exitCodes.rejected,
    meaning: 'no auth-capture payment with this id was held for this seller',
  },
  HOLD_AMOUNT_INVALID: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      'a capture takes more than 0 and at most what the payment still holds; a refund ' +
      'returns more than 0 and at most what was captured and not refunded; nothing moved',
  },
  REFUND_DEADLINE_PASSED: {
    status: 409,
    exit: exitCodes.rejected,
    meaning: "the payment's refund deadline has passed: the escrow refunds nothing after it; nothing moved",
  },
  REFUND_REFUSED: {
    status: 502,
    exit: exitCodes.failure,
    meaning: 'the facilitator refused the refund (the body has its reason); nothing moved',
  },
  // dashboard (SIWE sign-in, docs/dashboard.md "Dashboard")
  SIWE_REJECTED: {
    status: 401,
    exit: exitCodes.auth,
    meaning: 'the sign-in message is replayed, expired, for another domain or chain, or its signature does not match',
  },
  CSRF_REJECTED: {
    status: 403,
    exit: exitCodes.rejected,
    meaning: 'a dashboard change without the x-csrf-token of the session',
  },
  ORIGIN_REJECTED: {
    status: 403,
    exit: exitCodes.rejected,
    meaning:
      'a sign-in or dashboard change sent from another site (its ' +
      "Origin, or Sec-Fetch-Site, is not the dashboard's origin)",
  },
  // start-up (reported by `parx serve`, never answered over HTTP)
  DATA_DIR_UNUSABLE: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'the data dir is a file, not writable, or not a parx data dir',
  },
  DATA_DIR_IN_USE: {
    status: 409,
    exit: exitCodes.rejected,
    meaning: 'another parx serve holds the data dir (its pid and URL are named)',
  },
  PORT_IN_USE: {
    status: 409,
    exit: exitCodes.rejected,
    meaning: 'the API port or a chain port beside it is taken: pick another --port',
  },
  KEY_FILE_INVALID: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'keys.json in the data dir is not valid JSON or misses a key',
  },
  STORE_UNREADABLE: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'parx.db in the data dir is corrupt, truncated or unreadable',
  },
  CHAIN_STATE_UNREADABLE: {
    status: 400,
    exit: exitCodes.rejected,
    meaning:
      "an embedded chain's state file (chains/NETWORK.json) cannot " +
      'be read: restore it, --fresh, or --reset-chain NETWORK',
  },
  // backups (docs/operations.md "Backups")
  DATA_DIR_NOT_EMPTY: {
    status: 409,
    exit: exitCodes.rejected,
    meaning: 'parx restore writes only into a new or empty data dir: pass one, or empty this one first',
  },
  BACKUP_INVALID: {
    status: 400,
    exit: exitCodes.rejected,
    meaning: 'the file is not a parx backup, is cut short, or a file in it does not match its checksum',
  },
  BACKUP_UNSUPPORTED: {
    status: 409,
    exit: exitCodes.rejected,
    meaning:
      'parx backup copies a SQLite store; back up a PostgreSQL store with pg_dump (docs/operations.md "Backups")',
  },
  // issue 42's one error family: classes that were plain Errors before
  ATTESTOR_UNAVAILABLE: {
    status: 503,
    exit: exitCodes.failure,
    meaning:
      'a cross-chain attestor process did not answer, or answered as ' +
      'another attestor or with other keys than configured; retry shortly',
  },
  CHAIN_RPC_ERROR: {
    status: 502,
    exit: exitCodes.failure,
    meaning:
      "the embedded Solana's JSON-RPC refused a call or a transaction: its RPC clients " +
      'get the JSON-RPC error (code and message), never this code over the parx API',
  },
  FACILITATOR_UNAVAILABLE: {
    status: 502,
    exit: exitCodes.failure,
    meaning:
      "the facilitator did not answer, or not in x402's shape (its status " +
      'and body are in the message); nothing was verified or settled',
  },
  FACILITATOR_UNSUPPORTED: {
    status: 502,
    exit: exitCodes.failure,
    meaning:
      "a price names a scheme, asset or network the seller's facilitator does not support " +
      "(see its /supported): the seller's configuration is to fix; nothing was paid",
  },
  CHAIN_SETUP_FAILED: {
    status: 500,
    exit: exitCodes.failure,
    meaning:
      "setting up parx's contracts or programs on a chain failed (a deployment " +
      'reverted, a factory or deployer is missing, a delegation did not take): the ' +
      'message names which; the operator fixes the chain or deploys them another way',
  },
  VOID_REFUSED: {
    status: 502,
    exit: exitCodes.failure,
    meaning:
      'the facilitator refused to void an auth-capture hold (its reason ' +
      'is in the message): the hold stays recorded for a later void',
  },
  // found by the CLI or the SDK on the client's side, never answered by a service (docs/cli.md)
  USAGE: {
    status: null,
    exit: exitCodes.usage,
    meaning: 'a bad flag, argument or setting, or a required value missing without a terminal to ask on',
  },
  DAEMON_UNREACHABLE: {
    status: null,
    exit: exitCodes.unreachable,
    meaning: 'the daemon or platform did not answer at the URL (not running, wrong URL)',
  },
  NOT_PARX: {
    status: null,
    exit: exitCodes.unreachable,
    meaning: 'the server at the URL answered, but not as a parx service',
  },
  NO_CREDENTIALS: { status: null, exit: exitCodes.auth, meaning: 'the command needs a key or token and none is set' },
  CONFIG_CORRUPT: {
    status: null,
    exit: exitCodes.failure,
    meaning: "the CLI's config file cannot be read: fix it, or delete it to start over",
  },
  CANCELLED: {
    status: null,
    exit: exitCodes.cancelled,
    meaning: 'the user cancelled (Ctrl-C, or no at a confirmation)',
  },
  WAIT_TIMEOUT: {
    status: null,
    exit: exitCodes.failure,
    meaning: 'waiting gave up before a final state (the thing waited for goes on)',
  },
  DISCOVERY_UNREADABLE: {
    status: null,
    exit: exitCodes.failure,
    meaning: "`parx discover`: the facilitator's discovery listing did not answer, or not in the bazaar's shape",
  },
  RECEIPT_INVALID: {
    status: null,
    exit: exitCodes.receiptInvalid,
    meaning:
      '`parx receipt verify`: the signature does not recover to the ' +
      'expected signer (a field was changed, or another key signed it)',
  },
  RECEIPT_MALFORMED: {
    status: null,
    exit: exitCodes.receiptInvalid,
    meaning: '`parx receipt verify`: the input is not a receipt (not JSON, or a field missing or of the wrong form)',
  },
  XCHAIN_LOCK_FAILED: {
    status: null,
    exit: exitCodes.failure,
    meaning: "the SDK's cross-chain lock transaction landed but failed on chain: nothing was locked, build a new order",
  },
  SWAP_NOT_INCLUDED: {
    status: null,
    exit: exitCodes.failure,
    meaning: "the SDK's swap transaction failed, was replaced or was lost (its status and reason are in the message)",
  },
  BROWSER_WALLET_UNAVAILABLE: {
    status: null,
    exit: exitCodes.failure,
    meaning: "the dashboard's sign-in found no Ethereum wallet in the browser, or the wallet shared no account",
  },
} as const satisfies Record<string, { status: number | null; exit: ExitCode; meaning: string }>

export type ErrorCode = keyof typeof errorCodes
