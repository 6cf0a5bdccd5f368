/*
 * origin_settler: the Solana side of a Solana-origin cross-chain order.
 *
 * A user locks input tokens in a vault owned by an order PDA (open); the solver that delivered on
 * the destination chain takes them against 2-of-3 attestor ed25519 signatures over the delivery
 * statement (claim); after `expires` anyone returns them to the user's source token account
 * (refund). Every order ends exactly once. Layouts: ../README.md and ../../xchain/statement.ts.
 */
#include "sol.h"

/* Instruction tags (first byte of instruction data). */
#define IX_INIT_CONFIG 0
#define IX_OPEN 1
#define IX_CLAIM 2
#define IX_REFUND 3

/* Custom errors (the low 32 bits of the return value; documented in ../README.md). */
#define E_BAD_INSTRUCTION 1
#define E_WRONG_ACCOUNT 2
#define E_MISSING_SIGNATURE 3
#define E_ALREADY_INITIALIZED 4
#define E_BAD_CONFIG 5
#define E_ORDER_MISMATCH 6
#define E_BAD_DEADLINES 7
#define E_ORDER_NOT_OPEN 8
#define E_ORDER_EXPIRED 9
#define E_ORDER_NOT_EXPIRED 10
#define E_QUORUM_NOT_MET 11
#define E_WRONG_REFUND_ACCOUNT 12
#define E_WRONG_SOLVER_ACCOUNT 13
#define E_BAD_INSTRUCTIONS_SYSVAR 14
#define E_ALREADY_OPENED 15
#define E_NOT_ADMIN 16

#define KIND_CONFIG 1
#define KIND_ORDER 2

#define STATUS_OPEN 1
#define STATUS_CLAIMED 2
#define STATUS_REFUNDED 3

#define ATTESTORS 3

/* Config PDA ["config"]: who may not change anything later, and whose signatures count. */
typedef struct {
  uint8_t kind;
  uint8_t threshold;
  uint8_t bump;
  uint8_t pad[5];
  SolPubkey admin;
  SolPubkey attestors[ATTESTORS];
} Config; /* 136 bytes */

/* Order PDA ["order", order_id]. Kept after the order ends, so an order id opens at most once. */
typedef struct {
  uint8_t kind;
  uint8_t status;
  uint8_t bump;
  uint8_t vault_bump;
  uint8_t decimals;
  uint8_t pad[3];
  uint8_t order_id[32];
  SolPubkey user;
  SolPubkey user_token; /* the source token account: the only refund destination */
  SolPubkey mint;
  SolPubkey vault;
  SolPubkey rent_payer; /* paid the vault's rent at open; gets it back when the vault closes */
  uint64_t amount;
  int64_t fill_deadline;
  int64_t expires;
  uint8_t dest_chain[32];
  uint8_t output_token[32];
  uint8_t output_amount[32]; /* u256 big-endian, as signed in the delivery statement */
  uint8_t recipient[32];
} Order; /* 352 bytes */

/* The 276 packed order bytes (statement.ts solOrderBytes). */
#define ORDER_BYTES_LEN 276
#define OB_PROGRAM 20
#define OB_USER 52
#define OB_MINT 84
#define OB_INPUT_AMOUNT 116
#define OB_DEST_CHAIN 124
#define OB_OUTPUT_TOKEN 156
#define OB_OUTPUT_AMOUNT 188
#define OB_RECIPIENT 220
#define OB_FILL_DEADLINE 252
#define OB_EXPIRES 260
static const char ORDER_TAG[20] = "PARX_XCHAIN_ORDER_V1";

/* The delivery statement (statement.ts solDeliveryMessage), 248 bytes. */
#define DELIVERY_LEN 248
static const char DELIVERY_TAG[24] = "PARX_XCHAIN_DELIVERY_V1";

static const uint8_t SEED_CONFIG[6] = "config";
static const uint8_t SEED_ORDER[5] = {'o', 'r', 'd', 'e', 'r'};
static const uint8_t SEED_VAULT[5] = {'v', 'a', 'u', 'l', 't'};

static uint64_t fail(uint64_t code, const char *why, uint64_t len) {
  sol_log_(why, len);
  return code;
}
#define FAIL(code, literal) fail(code, literal, sizeof(literal) - 1)

static Config *load_config(SolAccountInfo *a, const SolPubkey *program_id) {
  if (!key_eq(a->owner, program_id) || a->data_len != sizeof(Config) || a->data[0] != KIND_CONFIG) return NULL;
  return (Config *)a->data;
}

static Order *load_order(SolAccountInfo *a, const SolPubkey *program_id) {
  if (!key_eq(a->owner, program_id) || a->data_len != sizeof(Order) || a->data[0] != KIND_ORDER) return NULL;
  return (Order *)a->data;
}

/* ---------------------------------------------------------------------------------------------
 * init_config: [admin (signer, writable, pays), config PDA (writable), system program,
 *               this program's ProgramData account]
 *   data: tag | threshold u8 | attestor 32 x 3
 * The admin is the program's upgrade authority, as recorded by the upgradeable loader: whoever can
 * replace the code anyway, and nobody else, sets the attestors, once.
 * ------------------------------------------------------------------------------------------- */
static bool is_upgrade_authority(SolAccountInfo *program_data, const SolPubkey *program_id, const SolPubkey *admin) {
  SolPubkey expected;
  uint8_t bump;
  SolSignerSeed seeds[1] = {{program_id->x, 32}};
  sol_try_find_program_address(seeds, 1, &BPF_LOADER_UPGRADEABLE_ID, &expected, &bump);
  if (!key_eq(program_data->key, &expected) || !key_eq(program_data->owner, &BPF_LOADER_UPGRADEABLE_ID)) return false;
  const uint8_t *d = program_data->data;
  return program_data->data_len >= PROGRAM_DATA_AUTHORITY + 32 && d[0] == PROGRAM_DATA_TAG && d[1] == 0 && d[2] == 0 &&
         d[3] == 0 && d[PROGRAM_DATA_AUTHORITY_SOME] == 1 && bytes_eq(d + PROGRAM_DATA_AUTHORITY, admin, 32);
}

static uint64_t init_config(SolInput *in) {
  if (in->account_count < 4) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in->data_len != 2 + 32 * ATTESTORS) return FAIL(E_BAD_INSTRUCTION, "init_config: bad data length");
  SolAccountInfo *admin = &in->accounts[0], *config = &in->accounts[1];
  if (!admin->is_signer) return FAIL(E_MISSING_SIGNATURE, "init_config: admin must sign");
  if (!is_upgrade_authority(&in->accounts[3], in->program_id, admin->key))
    return FAIL(E_NOT_ADMIN, "init_config: only the program's upgrade authority");
  uint8_t threshold = in->data[1];
  const SolPubkey *keys = (const SolPubkey *)(in->data + 2);
  if (threshold < 2 || threshold > ATTESTORS) return FAIL(E_BAD_CONFIG, "init_config: threshold");
  for (int i = 0; i < ATTESTORS; i++)
    for (int j = i + 1; j < ATTESTORS; j++)
      if (bytes_eq(&keys[i], &keys[j], 32)) return FAIL(E_BAD_CONFIG, "init_config: duplicate attestor");

  SolPubkey expected;
  uint8_t bump;
  SolSignerSeed find[1] = {{SEED_CONFIG, sizeof(SEED_CONFIG)}};
  sol_try_find_program_address(find, 1, in->program_id, &expected, &bump);
  if (!key_eq(config->key, &expected)) return FAIL(E_WRONG_ACCOUNT, "init_config: config PDA");
  if (*config->lamports != 0 || config->data_len != 0) return FAIL(E_ALREADY_INITIALIZED, "init_config: done once");

  SolSignerSeed seeds[2] = {{SEED_CONFIG, sizeof(SEED_CONFIG)}, {&bump, 1}};
  SolSignerSeeds signer = {seeds, 2};
  uint64_t r = cpi_create_account(admin, config, sizeof(Config), in->program_id, &signer);
  if (r) return r;
  Config *c = (Config *)config->data;
  c->kind = KIND_CONFIG;
  c->threshold = threshold;
  c->bump = bump;
  copy32(&c->admin, admin->key);
  sol_memcpy_(c->attestors, keys, 32 * ATTESTORS);
  return SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * open: [payer (signer, writable), user (signer), user token (writable), mint, order PDA (writable),
 *        vault PDA (writable), system program, token program]
 *   data: tag | the 276 order bytes. The order id is sha256 of those bytes, computed here.
 * ------------------------------------------------------------------------------------------- */
static uint64_t open_order(SolInput *in) {
  if (in->account_count < 8) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in->data_len != 1 + ORDER_BYTES_LEN) return FAIL(E_BAD_INSTRUCTION, "open: bad data length");
  SolAccountInfo *payer = &in->accounts[0], *user = &in->accounts[1], *user_token = &in->accounts[2];
  SolAccountInfo *mint = &in->accounts[3], *order = &in->accounts[4], *vault = &in->accounts[5];
  SolAccountInfo *token_program = &in->accounts[7];
  const uint8_t *ob = in->data + 1;

  if (!payer->is_signer || !user->is_signer) return FAIL(E_MISSING_SIGNATURE, "open: payer and user must sign");
  if (!key_eq(token_program->key, &TOKEN_PROGRAM_ID)) return FAIL(E_WRONG_ACCOUNT, "open: token program");
  if (!key_eq(mint->owner, &TOKEN_PROGRAM_ID) || mint->data_len != MINT_LEN) return FAIL(E_WRONG_ACCOUNT, "open: mint");
  if (!bytes_eq(ob, ORDER_TAG, sizeof(ORDER_TAG)) || !bytes_eq(ob + OB_PROGRAM, in->program_id, 32) ||
      !bytes_eq(ob + OB_USER, user->key, 32) || !bytes_eq(ob + OB_MINT, mint->key, 32))
    return FAIL(E_ORDER_MISMATCH, "open: order names another program, user or mint");
  uint64_t amount = rd_u64(ob + OB_INPUT_AMOUNT);
  int64_t fill_deadline = (int64_t)rd_u64(ob + OB_FILL_DEADLINE);
  int64_t expires = (int64_t)rd_u64(ob + OB_EXPIRES);
  if (amount == 0) return FAIL(E_ORDER_MISMATCH, "open: zero amount");
  if (fill_deadline > expires || fill_deadline <= clock_now())
    return FAIL(E_BAD_DEADLINES, "open: need now < fillDeadline <= expires");

  uint8_t order_id[32];
  SolBytes hashed[1] = {{ob, ORDER_BYTES_LEN}};
  sol_sha256(hashed, 1, order_id);

  SolPubkey expected;
  uint8_t order_bump, vault_bump;
  SolSignerSeed find_order[2] = {{SEED_ORDER, sizeof(SEED_ORDER)}, {order_id, 32}};
  sol_try_find_program_address(find_order, 2, in->program_id, &expected, &order_bump);
  if (!key_eq(order->key, &expected)) return FAIL(E_WRONG_ACCOUNT, "open: order PDA");
  SolSignerSeed find_vault[2] = {{SEED_VAULT, sizeof(SEED_VAULT)}, {order_id, 32}};
  sol_try_find_program_address(find_vault, 2, in->program_id, &expected, &vault_bump);
  if (!key_eq(vault->key, &expected)) return FAIL(E_WRONG_ACCOUNT, "open: vault PDA");
  if (order->data_len != 0 || !key_eq(order->owner, &SYSTEM_PROGRAM_ID))
    return FAIL(E_ALREADY_OPENED, "open: this order id was opened before");

  SolSignerSeed order_seeds[3] = {{SEED_ORDER, sizeof(SEED_ORDER)}, {order_id, 32}, {&order_bump, 1}};
  SolSignerSeeds order_signer = {order_seeds, 3};
  SolSignerSeed vault_seeds[3] = {{SEED_VAULT, sizeof(SEED_VAULT)}, {order_id, 32}, {&vault_bump, 1}};
  SolSignerSeeds vault_signer = {vault_seeds, 3};

  uint64_t r = cpi_create_account(payer, order, sizeof(Order), in->program_id, &order_signer);
  if (r) return r;
  r = cpi_create_account(payer, vault, TOKEN_ACCOUNT_LEN, &TOKEN_PROGRAM_ID, &vault_signer);
  if (r) return r;

  /* SPL Token InitializeAccount3 (18): the vault, its mint, and the order PDA as its owner. */
  uint8_t init[33];
  init[0] = 18;
  copy32(init + 1, order->key);
  SolAccountMeta init_metas[2] = {{vault->key, true, false}, {mint->key, false, false}};
  SolInstruction init_ix = {(SolPubkey *)&TOKEN_PROGRAM_ID, init_metas, 2, init, sizeof(init)};
  SolAccountInfo *init_accounts[2] = {vault, mint};
  r = invoke(&init_ix, init_accounts, 2, NULL, 0);
  if (r) return r;

  uint8_t decimals = mint->data[MINT_DECIMALS];
  TokenTransfer lock = {user_token, mint, vault, user, amount, decimals, NULL};
  r = cpi_transfer_checked(&lock);
  if (r) return r;

  Order *o = (Order *)order->data;
  o->kind = KIND_ORDER;
  o->status = STATUS_OPEN;
  o->bump = order_bump;
  o->vault_bump = vault_bump;
  o->decimals = decimals;
  copy32(o->order_id, order_id);
  copy32(&o->user, user->key);
  copy32(&o->user_token, user_token->key);
  copy32(&o->mint, mint->key);
  copy32(&o->vault, vault->key);
  copy32(&o->rent_payer, payer->key);
  o->amount = amount;
  o->fill_deadline = fill_deadline;
  o->expires = expires;
  copy32(o->dest_chain, ob + OB_DEST_CHAIN);
  copy32(o->output_token, ob + OB_OUTPUT_TOKEN);
  copy32(o->output_amount, ob + OB_OUTPUT_AMOUNT);
  copy32(o->recipient, ob + OB_RECIPIENT);
  return SUCCESS;
}

/* The accounts that end an order: its PDA, its vault, the mint, where the tokens go, who gets the rent. */
typedef struct {
  SolAccountInfo *order, *vault, *mint, *dest, *rent_payer;
} Settlement;

/* Pays the whole vault to `dest` and closes it (rent to the payer recorded at open); ends the order. */
static uint64_t settle(Order *o, const Settlement *s, uint8_t final_status) {
  SolSignerSeed seeds[3] = {{SEED_ORDER, sizeof(SEED_ORDER)}, {o->order_id, 32}, {&o->bump, 1}};
  SolSignerSeeds signer = {seeds, 3};
  /* Ended before any CPI: no path back into this order while tokens move. */
  o->status = final_status;
  TokenTransfer pay = {s->vault, s->mint, s->dest, s->order, o->amount, o->decimals, &signer};
  uint64_t r = cpi_transfer_checked(&pay);
  if (r) return r;
  /* SPL Token CloseAccount (9): vault -> rent payer, authority the order PDA. */
  uint8_t close = 9;
  SolAccountMeta metas[3] = {{s->vault->key, true, false}, {s->rent_payer->key, true, false}, {s->order->key, false, true}};
  SolInstruction ix = {(SolPubkey *)&TOKEN_PROGRAM_ID, metas, 3, &close, 1};
  SolAccountInfo *accounts[3] = {s->vault, s->rent_payer, s->order};
  return invoke(&ix, accounts, 3, &signer, 1);
}

static uint64_t check_settle_accounts(Order *o, SolAccountInfo *vault, SolAccountInfo *mint,
                                      SolAccountInfo *rent_payer, SolAccountInfo *token_program) {
  if (!key_eq(vault->key, &o->vault) || !key_eq(mint->key, &o->mint) || !key_eq(rent_payer->key, &o->rent_payer) ||
      !key_eq(token_program->key, &TOKEN_PROGRAM_ID))
    return FAIL(E_WRONG_ACCOUNT, "vault, mint, rent payer or token program");
  if (o->status != STATUS_OPEN) return FAIL(E_ORDER_NOT_OPEN, "order already ended");
  return SUCCESS;
}

/* ---------------------------------------------------------------------------------------------
 * claim: counts distinct configured attestors whose Ed25519-program instructions in this
 * transaction (any position, one or several signatures each) signed exactly the delivery statement
 * for this order and this solver. The Ed25519 program has already verified every signature it
 * carries, or the transaction would not run; we only read which key signed which bytes, and only
 * when both the key and the message lie inside that same Ed25519 instruction.
 * ------------------------------------------------------------------------------------------- */
#define ED_SIG_HEADER 2
#define ED_SIG_OFFSETS_LEN 14
#define ED_THIS_INSTRUCTION 0xffff

static uint64_t attestors_in(const uint8_t *ixs, uint64_t len, const uint8_t *message, const Config *cfg,
                             uint64_t *seen_mask) {
  if (len < 2) return E_BAD_INSTRUCTIONS_SYSVAR;
  uint64_t count = rd_u16(ixs);
  if (2 + 2 * count > len) return E_BAD_INSTRUCTIONS_SYSVAR;
  for (uint64_t i = 0; i < count; i++) {
    uint64_t p = rd_u16(ixs + 2 + 2 * i);
    if (p + 2 > len) return E_BAD_INSTRUCTIONS_SYSVAR;
    p += 2 + 33 * (uint64_t)rd_u16(ixs + p);
    if (p + 34 > len) return E_BAD_INSTRUCTIONS_SYSVAR;
    const uint8_t *program = ixs + p;
    uint64_t data_len = rd_u16(ixs + p + 32);
    p += 34;
    if (p + data_len > len) return E_BAD_INSTRUCTIONS_SYSVAR;
    if (!bytes_eq(program, &ED25519_PROGRAM_ID, 32) || data_len < ED_SIG_HEADER) continue;
    const uint8_t *data = ixs + p;
    uint64_t sigs = data[0];
    if (ED_SIG_HEADER + ED_SIG_OFFSETS_LEN * sigs > data_len) continue;
    for (uint64_t s = 0; s < sigs; s++) {
      const uint8_t *off = data + ED_SIG_HEADER + ED_SIG_OFFSETS_LEN * s;
      uint64_t key_at = rd_u16(off + 4), key_ix = rd_u16(off + 6);
      uint64_t msg_at = rd_u16(off + 8), msg_len = rd_u16(off + 10), msg_ix = rd_u16(off + 12);
      if ((key_ix != ED_THIS_INSTRUCTION && key_ix != i) || (msg_ix != ED_THIS_INSTRUCTION && msg_ix != i)) continue;
      if (msg_len != DELIVERY_LEN || key_at + 32 > data_len || msg_at + DELIVERY_LEN > data_len) continue;
      if (!bytes_eq(data + msg_at, message, DELIVERY_LEN)) continue;
      for (int a = 0; a < ATTESTORS; a++)
        if (bytes_eq(data + key_at, &cfg->attestors[a], 32)) *seen_mask |= 1u << a;
    }
  }
  return SUCCESS;
}

/* claim: [order (writable), vault (writable), mint, solver token (writable), rent payer (writable),
 *         config, instructions sysvar, token program]   data: tag | solver pubkey 32 */
static uint64_t claim(SolInput *in) {
  if (in->account_count < 8) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in->data_len != 1 + 32) return FAIL(E_BAD_INSTRUCTION, "claim: bad data length");
  SolAccountInfo *order = &in->accounts[0], *vault = &in->accounts[1], *mint = &in->accounts[2];
  SolAccountInfo *solver_token = &in->accounts[3], *rent_payer = &in->accounts[4], *config = &in->accounts[5];
  SolAccountInfo *sysvar = &in->accounts[6], *token_program = &in->accounts[7];
  const uint8_t *solver = in->data + 1;

  Order *o = load_order(order, in->program_id);
  if (!o) return FAIL(E_WRONG_ACCOUNT, "claim: not an order");
  Config *cfg = load_config(config, in->program_id);
  if (!cfg) return FAIL(E_WRONG_ACCOUNT, "claim: not the config");
  if (!key_eq(sysvar->key, &INSTRUCTIONS_SYSVAR_ID)) return FAIL(E_WRONG_ACCOUNT, "claim: instructions sysvar");
  uint64_t r = check_settle_accounts(o, vault, mint, rent_payer, token_program);
  if (r) return r;
  if (clock_now() > o->expires) return FAIL(E_ORDER_EXPIRED, "claim: order expired");
  if (!key_eq(solver_token->owner, &TOKEN_PROGRAM_ID) || solver_token->data_len != TOKEN_ACCOUNT_LEN ||
      !bytes_eq(solver_token->data + TOKEN_ACCOUNT_OWNER, solver, 32))
    return FAIL(E_WRONG_SOLVER_ACCOUNT, "claim: solver token account not owned by the solver");

  uint8_t message[DELIVERY_LEN];
  sol_memcpy_(message, DELIVERY_TAG, sizeof(DELIVERY_TAG));
  copy32(message + 24, in->program_id);
  copy32(message + 56, o->order_id);
  copy32(message + 88, o->dest_chain);
  copy32(message + 120, o->recipient);
  copy32(message + 152, o->output_token);
  copy32(message + 184, o->output_amount);
  copy32(message + 216, solver);

  uint64_t seen = 0;
  r = attestors_in(sysvar->data, sysvar->data_len, message, cfg, &seen);
  if (r) return FAIL(r, "claim: malformed instructions sysvar");
  uint64_t distinct = (seen & 1) + ((seen >> 1) & 1) + ((seen >> 2) & 1);
  if (distinct < cfg->threshold) return FAIL(E_QUORUM_NOT_MET, "claim: attestor quorum not met");
  Settlement to_solver = {order, vault, mint, solver_token, rent_payer};
  return settle(o, &to_solver, STATUS_CLAIMED);
}

/* refund: [order (writable), vault (writable), mint, user token (writable), rent payer (writable),
 *          token program]   data: tag. Anyone may send it once the order has expired. */
static uint64_t refund(SolInput *in) {
  if (in->account_count < 6) return ERROR_NOT_ENOUGH_ACCOUNT_KEYS;
  if (in->data_len != 1) return FAIL(E_BAD_INSTRUCTION, "refund: bad data length");
  SolAccountInfo *order = &in->accounts[0], *vault = &in->accounts[1], *mint = &in->accounts[2];
  SolAccountInfo *user_token = &in->accounts[3], *rent_payer = &in->accounts[4], *token_program = &in->accounts[5];
  Order *o = load_order(order, in->program_id);
  if (!o) return FAIL(E_WRONG_ACCOUNT, "refund: not an order");
  uint64_t r = check_settle_accounts(o, vault, mint, rent_payer, token_program);
  if (r) return r;
  if (!key_eq(user_token->key, &o->user_token)) return FAIL(E_WRONG_REFUND_ACCOUNT, "refund: only to the source account");
  if (clock_now() <= o->expires) return FAIL(E_ORDER_NOT_EXPIRED, "refund: order not expired");
  Settlement to_user = {order, vault, mint, user_token, rent_payer};
  return settle(o, &to_user, STATUS_REFUNDED);
}

uint64_t entrypoint(const uint8_t *input) {
  SolInput in;
  if (!sol_deserialize(input, &in)) return ERROR_INVALID_ARGUMENT;
  if (in.data_len == 0) return FAIL(E_BAD_INSTRUCTION, "empty instruction");
  switch (in.data[0]) {
    case IX_INIT_CONFIG: return init_config(&in);
    case IX_OPEN: return open_order(&in);
    case IX_CLAIM: return claim(&in);
    case IX_REFUND: return refund(&in);
    default: return FAIL(E_BAD_INSTRUCTION, "unknown instruction");
  }
}
