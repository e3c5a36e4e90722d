/**
 * Funding: deposit addresses, the withdrawal whitelist and withdrawals (the API specification's account table and
 * Authentication §6).
 *
 * Who may withdraw: a full login session (bearer) always; a registered agent's `mcp_` key only to a
 * whitelisted address of its own account that has finished cooling; a user's API key never (the API specification:
 * "user-issued keys ... can never withdraw, which requires a full login session"). Once an account has
 * whitelisted any address, every withdrawal must go to a whitelisted address that has finished cooling
 * (24 hours after it was added).
 *
 * A withdrawal is one journaled command (WithdrawTo: asset, amount, chain, address and the client's
 * reference), so it survives a crash with its destination; the embedded default's chain simulator settles
 * it at once with a `sim-` transaction hash derived from its seq. `client_withdrawal_id` makes retries
 * safe: a second request with the same id gets the first withdrawal back (200) instead of a second one,
 * also after a restart, since the read models rebuild withdrawals from the journal; the same id with other
 * parameters is a 409.
 */
import { CommandKind, type Command } from '../../engine/core/commands.ts';
import { Result, resultCode, resultMessage } from '../../engine/core/results.ts';
import { SimHashDomain, simTxHash } from '../../engine/core/sim-hash.ts';
import { amountToAtoms, formatAtoms, type Asset } from '../../engine/core/units.ts';
import type { ShellContext } from '../context.ts';
import type { WithdrawalRow } from '../read-models/queries.ts';
import { depositAddress, normalizeAddress, type Chain } from '../funding/chains.ts';
import { labelCharsMax } from '../funding/withdrawal-addresses.ts';
import { ApiError, engineRefusal } from './errors.ts';
import { pairOf } from './exchange-public.ts';
import { isoTime } from './order-json.ts';
import type { RequestContext, Route } from './route-table.ts';
import { Type } from '@sinclair/typebox';
import { closed, nextBeforeField, objectUnion, userIdField, whitelistEntrySchema, withdrawalFields, withdrawalSchema } from './schemas.ts';

/**
 * A withdrawal's answer: the record, and `duplicate: true` when a retry with the same client_withdrawal_id
 * got the first withdrawal back (200) rather than a new one (201).
 */
const withdrawAnswer = objectUnion([
  withdrawalSchema,
  closed({ ...withdrawalFields, duplicate: Type.Literal(true, { description: 'this is the earlier withdrawal with the same client_withdrawal_id' }) }),
]);
/** What a withdrawal may be refused with, beyond the shared codes. */
const withdrawErrors = [
  'UNKNOWN_ASSET',
  'UNKNOWN_CHAIN',
  'INVALID_ADDRESS',
  'ASSET_NOT_ON_CHAIN',
  'SESSION_REQUIRED',
  'ADDRESS_COOLING',
  'ADDRESS_NOT_WHITELISTED',
  'DESTINATION_NOT_VERIFIED',
  'WITHDRAWAL_IN_PROGRESS',
  'REFERENCE_REUSED',
  ...[
    Result.invalidNumber,
    Result.negativeValue,
    Result.zeroValue,
    Result.tooManyDecimals,
    Result.valueTooLarge,
    Result.insufficientBalance,
    Result.invalidDestination,
  ].map(resultCode),
];

const decimal = { oneOf: [{ type: 'string', minLength: 1, maxLength: 40 }, { type: 'number' }] };
const chainField = { type: 'string', minLength: 1, maxLength: 32 };
const addressField = { type: 'string', minLength: 1, maxLength: 64 };
const referenceField = { type: 'string', pattern: '^[A-Za-z0-9_.:-]{1,64}$' };
/** Withdrawals listed per page at most, and by default. */
export const withdrawalsLimitMax = 500;
const withdrawalsLimitDefault = 100;

interface WithdrawBody {
  asset?: string;
  amount: unknown;
  chain: string;
  address: string;
  client_withdrawal_id?: string;
}

const withdrawBody = (assetRequired: boolean) => ({
  type: 'object',
  additionalProperties: false,
  required: assetRequired ? ['asset', 'amount', 'chain', 'address'] : ['amount', 'chain', 'address'],
  properties: { asset: { type: 'string', minLength: 1, maxLength: 16 }, amount: decimal, chain: chainField, address: addressField, client_withdrawal_id: referenceField },
});

export function fundingRoutes(context: ShellContext): Route[] {
  const { chains, addresses, depositSecret } = context.funding;
  const queries = context.readModels.queries;
  /** Withdrawals sent and not yet answered, by user and reference: a retry racing its original waits outside. */
  const inFlight = new Set<string>();

  const chainOf = (name: string): Chain => {
    const chain = chains.byName(name);
    if (chain === undefined) throw new ApiError(422, 'UNKNOWN_CHAIN', `chain: must be one of ${chains.all.map((known) => known.name).join(', ')}`);
    return chain;
  };
  const addressOn = (chain: Chain, address: string): string => {
    const normalized = normalizeAddress(chain, address);
    if (normalized === null) {
      const form = chain.family === 'evm' ? '0x and 40 hex digits' : 'the base58 form of 32 bytes';
      throw new ApiError(422, 'INVALID_ADDRESS', `address: not a ${chain.name} address (${form})`);
    }
    return normalized;
  };
  const assetNamed = (symbol: string): Asset => {
    const asset = context.markets.assetBySymbol(symbol);
    if (asset === undefined) throw new ApiError(422, 'UNKNOWN_ASSET', `asset: no asset ${JSON.stringify(symbol)}`);
    return asset;
  };
  const whitelistRecord = (entry: { chain: Chain; address: string; label: string; createdAtMs: number; usableAtMs: number }) => ({
    address: entry.address,
    chain: entry.chain.name,
    label: entry.label,
    status: entry.usableAtMs <= context.clock() ? 'usable' : 'cooling',
    created_at: isoTime(entry.createdAtMs),
    usable_at: isoTime(entry.usableAtMs),
  });
  const withdrawalRecord = (row: WithdrawalRow) => {
    const asset = context.markets.assetById(row.assetId)!;
    return {
      withdrawal_id: String(row.seq),
      client_withdrawal_id: row.reference === '' ? null : row.reference,
      asset: asset.symbol,
      amount: formatAtoms(row.amountAtoms, asset),
      chain: chains.byId(row.chainId)?.name ?? String(row.chainId),
      address: row.address,
      // The embedded default's chain simulator settles a withdrawal as soon as it is journaled.
      status: 'completed',
      tx_hash: simTxHash(SimHashDomain.withdrawal, row.seq),
      created_at: isoTime(row.tsMs),
    };
  };

  /** Who may send this withdrawal where (see the file comment); throws the refusal. */
  const checkDestination = (request: RequestContext, chain: Chain, address: string): void => {
    const principal = request.principal!;
    if (principal.via === 'key') {
      throw new ApiError(403, 'SESSION_REQUIRED', 'withdrawals need a login session (Authorization: Bearer); API keys cannot withdraw');
    }
    const check = addresses.check(principal.userId, chain, address);
    if (check.kind === 'usable') return;
    if (check.kind === 'cooling') {
      throw new ApiError(403, 'ADDRESS_COOLING', `this address is whitelisted but cooling until ${isoTime(check.usableAtMs)}`);
    }
    if (principal.via === 'agent') {
      throw new ApiError(403, 'DESTINATION_NOT_VERIFIED', "an agent key may withdraw only to its own account's whitelisted address once it has cooled");
    }
    if (check.kind === 'not_whitelisted') throw new ApiError(403, 'ADDRESS_NOT_WHITELISTED', 'this account has a withdrawal whitelist and the address is not on it');
  };

  const withdraw = async (request: RequestContext, asset: Asset, body: WithdrawBody) => {
    const userId = request.principal!.userId;
    const chain = chainOf(body.chain);
    const address = addressOn(chain, body.address);
    if (!chain.assets.includes(asset)) {
      throw new ApiError(422, 'ASSET_NOT_ON_CHAIN', `asset: ${asset.symbol} cannot be withdrawn to ${chain.name} (${chain.assets.map((known) => known.symbol).join(', ')})`);
    }
    const amount = amountToAtoms(body.amount, asset);
    if (amount.code !== Result.ok) throw new ApiError(422, resultCode(amount.code), `amount: ${resultMessage(amount.code)}`);
    checkDestination(request, chain, address);
    const reference = body.client_withdrawal_id ?? '';
    const key = `${userId}\u0000${reference}`;
    if (reference !== '') {
      if (inFlight.has(key)) throw new ApiError(409, 'WITHDRAWAL_IN_PROGRESS', 'a withdrawal with this client_withdrawal_id is being processed');
      inFlight.add(key);
    }
    try {
      if (reference !== '') {
        // Everything journaled before this request is in the read models once this resolves.
        await context.readModels.whenApplied(context.durable.sequencer.durableSeq);
        const earlier = queries.withdrawalByReference(userId, reference);
        if (earlier !== undefined) {
          const same = earlier.assetId === asset.id && earlier.amountAtoms === amount.value && earlier.chainId === chain.id && earlier.address === address;
          if (!same) throw new ApiError(409, 'REFERENCE_REUSED', 'client_withdrawal_id was used for a different withdrawal');
          return { status: 200, body: { ...withdrawalRecord(earlier), duplicate: true } };
        }
      }
      const command: Command = { kind: CommandKind.withdrawTo, seq: 0, ts: 0, userId, assetId: asset.id, amountAtoms: amount.value, chainId: chain.id, address, reference };
      const submission = await context.durable.submit(command);
      if (submission.result !== Result.ok) throw engineRefusal(submission.result);
      const row: WithdrawalRow = { seq: submission.seq, userId, assetId: asset.id, amountAtoms: amount.value, chainId: chain.id, address, reference, tsMs: submission.ts };
      context.log('withdrawal', { user_id: userId, seq: submission.seq, asset: asset.symbol, chain: chain.name });
      return { status: 201, body: withdrawalRecord(row) };
    } finally {
      inFlight.delete(key);
    }
  };

  return [
    {
      method: 'POST',
      name: 'add_withdrawal_address',
      path: '/api/v1/account/withdrawal-addresses',
      auth: 'bearer',
      rateLimit: 'general',
      tags: ['Funding'],
      status: 201,
      errors: ['UNKNOWN_CHAIN', 'INVALID_ADDRESS', 'ALREADY_WHITELISTED', 'TOO_MANY_ADDRESSES'],
      summary: 'Whitelist a withdrawal address (address, chain, label); it cools for 24 hours before it may be used',
      response: whitelistEntrySchema,
      body: {
        type: 'object',
        additionalProperties: false,
        required: ['address', 'chain'],
        properties: { address: addressField, chain: chainField, label: { type: 'string', maxLength: labelCharsMax } },
      },
      handler: (request) => {
        const body = request.body as { address: string; chain: string; label?: string };
        const chain = chainOf(body.chain);
        const added = addresses.add(request.principal!.userId, chain, addressOn(chain, body.address), body.label ?? '');
        if ('refused' in added) {
          if (added.refused === 'duplicate') throw new ApiError(409, 'ALREADY_WHITELISTED', 'this address is already on the whitelist');
          throw new ApiError(422, 'TOO_MANY_ADDRESSES', 'the whitelist is full; remove an address first');
        }
        context.log('withdrawal_address_added', { user_id: request.principal!.userId, chain: chain.name });
        return { status: 201, body: whitelistRecord(added.added) };
      },
    },
    {
      method: 'GET',
      name: 'list_withdrawal_addresses',
      path: '/api/v1/account/withdrawal-addresses',
      auth: 'bearer',
      rateLimit: 'general',
      tags: ['Funding'],
      errors: [],
      summary: 'The withdrawal whitelist, each address with its status (cooling or usable) and when it becomes usable',
      response: closed({ addresses: Type.Array(whitelistEntrySchema) }),
      handler: (request) => ({ body: { addresses: addresses.list(request.principal!.userId).map(whitelistRecord) } }),
    },
    {
      method: 'DELETE',
      name: 'remove_withdrawal_address',
      path: '/api/v1/account/withdrawal-addresses',
      auth: 'bearer',
      rateLimit: 'general',
      tags: ['Funding'],
      errors: ['UNKNOWN_CHAIN', 'INVALID_ADDRESS', 'ADDRESS_NOT_FOUND'],
      summary: 'Remove a whitelisted address (address, chain) at once',
      response: closed({ address: Type.String({ description: 'normalized' }), chain: Type.String(), removed: Type.Literal(true) }),
      body: { type: 'object', additionalProperties: false, required: ['address', 'chain'], properties: { address: addressField, chain: chainField } },
      handler: (request) => {
        const body = request.body as { address: string; chain: string };
        const chain = chainOf(body.chain);
        const address = addressOn(chain, body.address);
        if (!addresses.delete(request.principal!.userId, chain, address)) throw new ApiError(404, 'ADDRESS_NOT_FOUND', 'this address is not on the whitelist');
        context.log('withdrawal_address_removed', { user_id: request.principal!.userId, chain: chain.name });
        return { body: { address, chain: chain.name, removed: true } };
      },
    },
    {
      method: 'GET',
      name: 'get_deposit_addresses',
      path: '/api/v1/funding/deposit-addresses',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags: ['Funding'],
      errors: [],
      summary: "The caller's deposit address on each chain, with the assets each chain carries",
      response: closed({
        user_id: userIdField,
        addresses: Type.Array(
          closed({
            chain: Type.String(),
            address: Type.String({ description: "the caller's deposit address on this chain" }),
            assets: Type.Array(Type.String(), { description: 'symbols of the assets this chain carries' }),
          }),
        ),
      }),
      handler: (request) => {
        const userId = request.principal!.userId;
        return {
          body: {
            user_id: userId,
            addresses: chains.all.map((chain) => ({ chain: chain.name, address: depositAddress(depositSecret, userId, chain), assets: chain.assets.map((asset) => asset.symbol) })),
          },
        };
      },
    },
    {
      method: 'POST',
      name: 'withdraw',
      path: '/api/v1/funding/withdraw',
      auth: 'bearer_or_key',
      rateLimit: 'general',
      tags: ['Funding'],
      errors: withdrawErrors,
      summary: 'Withdraw to an external wallet: asset, amount, chain, address, optional client_withdrawal_id (idempotent); a login session, not an API key',
      response: withdrawAnswer,
      body: withdrawBody(true),
      handler: (request) => {
        const body = request.body as WithdrawBody;
        return withdraw(request, assetNamed(body.asset!), body);
      },
    },
    {
      method: 'POST',
      name: 'tp_clob_withdraw',
      path: '/api/v1/exchange/{symbol}/withdraw',
      auth: 'bearer_or_key',
      rateLimit: 'general',
      tags: ['Exchange'],
      errors: ['PAIR_NOT_FOUND', ...withdrawErrors],
      summary: 'Withdraw a token of this pair (the base token unless asset names the quote) as /api/v1/funding/withdraw',
      response: withdrawAnswer,
      body: withdrawBody(false),
      handler: (request) => {
        const pair = pairOf(context, request.params['symbol']);
        const body = request.body as WithdrawBody;
        const asset = body.asset === undefined ? pair.base : assetNamed(body.asset);
        if (asset !== pair.base && asset !== pair.quote) throw new ApiError(422, 'VALIDATION_FAILED', `asset: must be ${pair.base.symbol} or ${pair.quote.symbol}`);
        return withdraw(request, asset, body);
      },
    },
    {
      method: 'GET',
      name: 'list_withdrawals',
      path: '/api/v1/funding/withdrawals',
      auth: 'bearer_or_key',
      permission: 'read',
      rateLimit: 'general',
      tags: ['Funding'],
      errors: [],
      summary: "The caller's withdrawals, newest first; limit 1..500 (100), before (a withdrawal id)",
      response: closed({
        withdrawals: Type.Array(withdrawalSchema, { description: 'newest first' }),
        next_before: nextBeforeField,
      }),
      query: {
        type: 'object',
        additionalProperties: false,
        properties: { limit: { type: 'string', pattern: '^[0-9]{1,4}$' }, before: { type: 'string', pattern: '^[0-9]{1,16}$' } },
      },
      handler: async (request) => {
        const limit = request.query['limit'] === undefined ? withdrawalsLimitDefault : Number(request.query['limit']);
        if (limit < 1 || limit > withdrawalsLimitMax) throw new ApiError(422, 'VALIDATION_FAILED', `query.limit: must be an integer from 1 to ${withdrawalsLimitMax}`);
        const before = request.query['before'] === undefined ? Number.MAX_SAFE_INTEGER : Number(request.query['before']);
        await context.readModels.whenApplied(context.durable.sequencer.durableSeq);
        const rows = queries.withdrawals(request.principal!.userId, limit + 1, before);
        const page = rows.slice(0, limit);
        return { body: { withdrawals: page.map(withdrawalRecord), next_before: rows.length > limit ? String(page[page.length - 1]!.seq) : null } };
      },
    },
  ];
}
