/*
 * dest_settler: the Solana side of an EVM-origin cross-chain order.
 *
 * The solver delivers the output to the recipient's token account (fill) and a fill-record PDA
 * seeded by the order id records what was delivered, to whom, when, and which EVM address may
 * claim the locked input on Base. The record's existence makes a second fill of the same order
 * fail. Attestors read the record before signing. Layouts: ../README.md.
 */
#include "sol.h"

#define IX_FILL 1

/* Custom errors (documented in ../README.md). */
#define E_BAD_INSTRUCTION 1
#define E_WRONG_ACCOUNT 2
#define E_MISSING_SIGNATURE 3
#define E_ALREADY_FILLED 20
#define E_FILL_DEADLINE_PASSED 21
#define E_WRONG_RECIPIENT_ACCOUNT 22

#define KIND_FILL 3

/* Fill record PDA ["fill", order_id]. */
typedef struct {
  uint8_t kind;
  uint8_t bump;
  uint8_t pad[6];
  uint8_t order_id[32];
  SolPubkey recipient; /* the owner of the token account that received the output */
  SolPubkey mint;
  uint64_t amount;
  uint8_t claimant[32]; /* bytes32: the solver's EVM address that may claim on the origin chain */
  int64_t filled_at;    /* clock unix timestamp of the fill */
  SolPubkey solver;
} FillRecord; /* 184 bytes */

/* fill data: tag | order_id 32 | recipient 32 | amount u64 LE | claimant 32 | fillDeadline i64 LE */
#define FILL_DATA_LEN (1 + 32 + 32 + 8 + 32 + 8)

static const uint8_t SEED_FILL[4] = {'f', 'i', 'l', 'l'};

static uint64_t fail(uint64_t code, const char *why, uint64_t len) {
  sol_log_(why, len);
  return code;
}
#define FAIL(code, literal) fail(code, literal, sizeof(literal) - 1)

/* fill: [solver (signer, writable, pays), solver token (writable), recipient token (writable), mint,
 *        fill record PDA (writable), system program, token program] */
static uint64_t fill(SolInput *in) {
  if (in->account_count < 7) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in->data_len != FILL_DATA_LEN) return FAIL(E_BAD_INSTRUCTION, "fill: bad data length");
  SolAccountInfo *solver = &in->accounts[0], *solver_token = &in->accounts[1], *recipient_token = &in->accounts[2];
  SolAccountInfo *mint = &in->accounts[3], *record = &in->accounts[4], *token_program = &in->accounts[6];
  const uint8_t *order_id = in->data + 1;
  const uint8_t *recipient = in->data + 33;
  uint64_t amount = rd_u64(in->data + 65);
  const uint8_t *claimant = in->data + 73;
  int64_t fill_deadline = (int64_t)rd_u64(in->data + 105);

  if (!solver->is_signer) return FAIL(E_MISSING_SIGNATURE, "fill: solver must sign");
  if (!key_eq(token_program->key, &TOKEN_PROGRAM_ID)) return FAIL(E_WRONG_ACCOUNT, "fill: token program");
  if (!key_eq(mint->owner, &TOKEN_PROGRAM_ID) || mint->data_len != MINT_LEN) return FAIL(E_WRONG_ACCOUNT, "fill: mint");
  if (amount == 0) return FAIL(E_BAD_INSTRUCTION, "fill: zero amount");
  int64_t now = clock_now();
  if (now > fill_deadline) return FAIL(E_FILL_DEADLINE_PASSED, "fill: after the fill deadline");
  if (!key_eq(recipient_token->owner, &TOKEN_PROGRAM_ID) || recipient_token->data_len != TOKEN_ACCOUNT_LEN ||
      !bytes_eq(recipient_token->data + TOKEN_ACCOUNT_OWNER, recipient, 32) ||
      !bytes_eq(recipient_token->data + TOKEN_ACCOUNT_MINT, mint->key, 32))
    return FAIL(E_WRONG_RECIPIENT_ACCOUNT, "fill: recipient token account not the recipient's for this mint");

  SolPubkey expected;
  uint8_t bump;
  SolSignerSeed find[2] = {{SEED_FILL, sizeof(SEED_FILL)}, {order_id, 32}};
  sol_try_find_program_address(find, 2, in->program_id, &expected, &bump);
  if (!key_eq(record->key, &expected)) return FAIL(E_WRONG_ACCOUNT, "fill: fill record PDA");
  if (record->data_len != 0 || !key_eq(record->owner, &SYSTEM_PROGRAM_ID))
    return FAIL(E_ALREADY_FILLED, "fill: order already filled");

  SolSignerSeed seeds[3] = {{SEED_FILL, sizeof(SEED_FILL)}, {order_id, 32}, {&bump, 1}};
  SolSignerSeeds signer = {seeds, 3};
  uint64_t r = cpi_create_account(solver, record, sizeof(FillRecord), in->program_id, &signer);
  if (r) return r;
  TokenTransfer deliver = {solver_token, mint, recipient_token, solver, amount, mint->data[MINT_DECIMALS], NULL};
  r = cpi_transfer_checked(&deliver);
  if (r) return r;

  FillRecord *f = (FillRecord *)record->data;
  f->kind = KIND_FILL;
  f->bump = bump;
  copy32(f->order_id, order_id);
  copy32(&f->recipient, recipient);
  copy32(&f->mint, mint->key);
  f->amount = amount;
  copy32(f->claimant, claimant);
  f->filled_at = now;
  copy32(&f->solver, solver->key);
  return SUCCESS;
}

uint64_t entrypoint(const uint8_t *input) {
  SolInput in;
  if (!sol_deserialize(input, &in)) return ERROR_INVALID_ARGUMENT;
  if (in.data_len == 0) return FAIL(E_BAD_INSTRUCTION, "empty instruction");
  if (in.data[0] == IX_FILL) return fill(&in);
  return FAIL(E_BAD_INSTRUCTION, "unknown instruction");
}
