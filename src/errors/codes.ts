/**
 * Every error code the service answers with, and its HTTP status.
 * Codes are published API: never rename or reuse one; add new ones at the end of their group.
 * The error table of docs/errors.md is checked against this list (test/readme.test.ts).
 */
export const errorCodes = {
  // request shape
  BAD_REQUEST: { status: 400, meaning: 'a field is missing, malformed, or disagrees with another field' },
  MALFORMED_JSON: { status: 400, meaning: 'the body is not valid JSON' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'the body is larger than the route accepts' },
  NOT_FOUND: { status: 404, meaning: 'no such route or resource' },
  EXPECTATION_FAILED: { status: 417, meaning: 'the Expect header asks for something other than 100-continue' },
  HEADERS_TOO_LARGE: { status: 431, meaning: 'the request line or headers are larger than the server accepts' },
  REQUEST_TIMEOUT: { status: 408, meaning: 'the request was not received in time' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'the route reads a JSON body and the Content-Type is not application/json (or another +json type)' },
  // auth
  UNAUTHORIZED: { status: 401, meaning: 'partner key or operator token missing or invalid' },
  // swaps
  ORDER_MISMATCH: { status: 400, meaning: 'a signed order field disagrees with the request' },
  AMOUNT_MISMATCH: { status: 400, meaning: 'uiAmount does not equal order.inputAmount at the token decimals' },
  UNKNOWN_TOKEN: { status: 400, meaning: 'the symbol is not in the network registry' },
  UNSUPPORTED_PAIR: { status: 400, meaning: 'the route does not swap this input for this output' },
  DEADLINE_EXPIRED: { status: 400, meaning: 'the order deadline has passed: re-sign' },
  NONCE_MISMATCH: { status: 400, meaning: 'order.nonce is not the router nonce of the user: re-sign' },
  INVALID_SIGNATURE: { status: 400, meaning: 'a signature does not recover to the expected signer' },
  INVENTORY_SHORT: { status: 400, meaning: 'solver inventory or router allowance is below the amount' },
  INSUFFICIENT_BALANCE: { status: 400, meaning: 'the user holds less than the input amount' },
  AMOUNT_TOO_LARGE: { status: 400, meaning: 'the amount exceeds the per-swap size limit of the route' },
  SLIPPAGE_TOO_HIGH: { status: 400, meaning: 'the quote would exceed slippageBpsMax: reduce size and re-quote' },
  SIMULATION_FAILED: { status: 422, meaning: 'the transaction reverts in simulation; the reason is in the message' },
  FLOW_DISABLED: { status: 403, meaning: 'the flow is disabled for this route (see /api/capabilities)' },
  RATE_LIMITED: { status: 429, meaning: 'too many requests from this client: slow down and retry' },
  QUOTE_STALE: { status: 400, meaning: 'the pool now pays less than the signed minOutputAmount: re-quote and re-sign' },
  // local profile
  PROFILE_ONLY: { status: 404, meaning: 'the route exists only on another profile (e.g. the faucet on local)' },
  AMOUNT_OUT_OF_RANGE: { status: 400, meaning: 'the amount is more than the token can hold (uint256 on EVM, u64 on Solana)' },
  // dependencies
  CHAIN_UNAVAILABLE: { status: 503, meaning: 'a chain RPC did not answer; retry shortly' },
  KEY_STORE_UNAVAILABLE: { status: 503, meaning: 'the key store cannot be read and no recent verdict exists; retry shortly' },
  STORE_UNAVAILABLE: { status: 503, meaning: 'the store (database) cannot be reached; retry shortly' },
  WALLET_KEY_UNAVAILABLE: { status: 503, meaning: "a wallet was sealed under a platform key this replica does not hold: the operator gives every replica the same keys.platformWallet (and keys.platformWalletPrevious); nothing was signed" },
  RELAY_FAILED: { status: 502, meaning: 'the transaction could not be relayed; nothing was spent' },
  INTERNAL: { status: 500, meaning: 'a bug on our side; the log has the details' },
  CONFIG_INVALID: { status: 500, meaning: 'the daemon refused to start: the message lists every setting to fix' },
  // agent payments platform (docs/platform-api.md)
  FORBIDDEN: { status: 403, meaning: 'the key is valid but may not do this (an agent key on a user route, or on another agent)' },
  ALREADY_EXISTS: { status: 409, meaning: 'the resource exists already (e.g. a user for this wallet)' },
  LIMIT_EXCEEDED: { status: 403, meaning: 'a spending limit of the agent refuses the amount; the body has limit, amountUsd and remainingUsd' },
  NETWORK_UNSUPPORTED: { status: 400, meaning: 'the network is not in the registry or does not offer this (e.g. swap off Base)' },
  PRICE_ABOVE_MAX: { status: 409, meaning: "the seller's price is above maxAmount; nothing was paid" },
  SELLER_TERMS_MALFORMED: { status: 502, meaning: 'the seller answered 402 with terms that cannot be read; nothing was paid' },
  SELLER_METHOD_UNSUPPORTED: { status: 422, meaning: "no payment method the seller offers is payable on the agent's network and tokens; nothing was paid" },
  PAYMENT_REFUSED: { status: 502, meaning: 'the seller refused the signed payment; the body says whether anything was charged' },
  SELLER_FAILED: { status: 502, meaning: 'the seller failed or timed out; the body says whether anything was charged' },
  BUNDLER_UNAVAILABLE: { status: 503, meaning: 'the ERC-4337 bundler did not answer; nothing was spent, retry shortly' },
  SEND_PENDING: { status: 504, meaning: 'the bundler took the user operation and did not answer; it may still be included, and the amount stays reserved until the chain decides (the send then shows in payments as confirmed or released)' },
  EGRESS_REFUSED: { status: 403, meaning: 'the URL resolves to an address the platform does not fetch for users (loopback, private, link-local...); nothing was sent or paid' },
  QUOTA_EXCEEDED: { status: 403, meaning: 'a per-user quota (agents, endpoints, webhooks, keys, pay calls in flight) is reached; the body has quota, limit and used' },
  CHANNEL_TERMS_REFUSED: { status: 502, meaning: "the seller's batch-settlement offer names a contract, network, token domain, authorizer or deposit the platform does not pay into; nothing was paid" },
  CHANNEL_TERMS_CHANGED: { status: 409, meaning: "the seller's batch-settlement terms (withdraw delay, receiver authorizer...) changed while the agent's channel to it still holds a deposit: one channel per seller, network and token, so nothing was paid; refund or withdraw that channel first" },
  AUTH_CAPTURE_TERMS_REFUSED: { status: 502, meaning: "the seller's auth-capture offer asks a hold the platform does not sign (a capture deadline beyond 7 days, a refund deadline beyond 30 days, deadlines out of order, fee bounds that are not basis points) and nothing else offered was payable; nothing was signed or paid" },
  CHANNEL_REFUND_REFUSED: { status: 502, meaning: "the seller did not refund the channel's unspent deposit; nothing moved (withdraw after the channel's delay instead)" },
  CHANNEL_WITHDRAW_PENDING: { status: 409, meaning: "a withdrawal of the channel is under way: it can be finalized only from the time the error names, and no voucher is signed on the channel meanwhile" },
  NOTHING_TO_WITHDRAW: { status: 409, meaning: 'the channel holds nothing unclaimed to withdraw; nothing was sent' },
  BATCH_AUTHORIZER_NOT_CONFIGURED: { status: 409, meaning: 'a batch-settlement endpoint needs a receiver authorizer parx holds, and this deployment has none: set PARX_BATCH_RECEIVER_AUTHORIZER_KEY (keys.batchReceiverAuthorizer) on every replica' },
  AGENT_FROZEN: { status: 423, meaning: "the agent's owner froze it: no pay, send, swap or channel deposit is signed until it is unfrozen; what was signed before follows its course" },
  APPROVAL_REQUIRED: { status: 403, meaning: "the amount is above the agent's approveAboveUsd: the request is held as a pending approval (approvalId, expiresAt) and nothing was signed; send it again with approvalId once the owner approved it" },
  APPROVAL_NOT_PENDING: { status: 409, meaning: 'the approval was already approved, denied, used or has expired: it cannot be decided now (the body has state)' },
  APPROVAL_NOT_USABLE: { status: 409, meaning: 'the approvalId sent was denied, has expired, was used already or was given for another request; nothing was signed (the body has state)' },
  AUTH_CAPTURE_AUTHORIZER_NOT_CONFIGURED: { status: 409, meaning: "an auth-capture offer needs the facilitator's receiver authorizer (it consents to the seller's capture, void and refund), and this facilitator advertises none: set PARX_BATCH_RECEIVER_AUTHORIZER_KEY (keys.batchReceiverAuthorizer)" },
  HOLD_NOT_FOUND: { status: 404, meaning: 'no auth-capture payment with this id was held for this seller' },
  HOLD_AMOUNT_INVALID: { status: 409, meaning: 'a capture takes more than 0 and at most what the payment still holds; a refund returns more than 0 and at most what was captured and not refunded; nothing moved' },
  REFUND_DEADLINE_PASSED: { status: 409, meaning: "the payment's refund deadline has passed: the escrow refunds nothing after it; nothing moved" },
  REFUND_REFUSED: { status: 502, meaning: 'the facilitator refused the refund (the body has its reason); nothing moved' },
  // dashboard (SIWE sign-in, docs/dashboard.md "Dashboard")
  SIWE_REJECTED: { status: 401, meaning: 'the sign-in message is replayed, expired, for another domain or chain, or its signature does not match' },
  CSRF_REJECTED: { status: 403, meaning: 'a dashboard change without the x-csrf-token of the session' },
  ORIGIN_REJECTED: { status: 403, meaning: "a sign-in or dashboard change sent from another site (its Origin, or Sec-Fetch-Site, is not the dashboard's origin)" },
  // start-up (reported by `parx serve`, never answered over HTTP)
  DATA_DIR_UNUSABLE: { status: 400, meaning: 'the data dir is a file, not writable, or not a parx data dir' },
  DATA_DIR_IN_USE: { status: 409, meaning: 'another parx serve holds the data dir (its pid and URL are named)' },
  PORT_IN_USE: { status: 409, meaning: 'the API port or a chain port beside it is taken: pick another --port' },
  KEY_FILE_INVALID: { status: 400, meaning: 'keys.json in the data dir is not valid JSON or misses a key' },
  STORE_UNREADABLE: { status: 400, meaning: 'parx.db in the data dir is corrupt, truncated or unreadable' },
  CHAIN_STATE_UNREADABLE: { status: 400, meaning: "an embedded chain's state file (chains/NETWORK.json) cannot be read: restore it, --fresh, or --reset-chain NETWORK" },
  // backups (docs/operations.md "Backups")
  DATA_DIR_NOT_EMPTY: { status: 409, meaning: 'parx restore writes only into a new or empty data dir: pass one, or empty this one first' },
  BACKUP_INVALID: { status: 400, meaning: 'the file is not a parx backup, is cut short, or a file in it does not match its checksum' },
  BACKUP_UNSUPPORTED: { status: 409, meaning: 'parx backup copies a SQLite store; back up a PostgreSQL store with pg_dump (docs/operations.md "Backups")' },
} as const satisfies Record<string, { status: number; meaning: string }>

export type ErrorCode = keyof typeof errorCodes
