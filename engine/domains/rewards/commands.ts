/**
 * The rewards domain's commands, events, result codes and limits (domain id 11: numbers 11000..11999):
 * revenue-share accrual to holders of the platform tokens, and bug-bounty payments.
 *
 * Revenue share: once configured, the module adds up the live exchange's taker fees in USDC (every fill:
 * TradeExecuted and our orders' AmmFill as taker). At each accrual (its timer, every `intervalMs` of
 * journaled time, aligned to its multiples) `shareBps` of those fees, plus what earlier accruals could not
 * give out, is split equally between the configured tokens, and each token's part pro rata to the live
 * ledger balances (available + held) of that token of every user account (not fee, venue or domain
 * accounts), plus what the user has staked of that token in the incentives domain's staking pools (staked
 * tokens sit in the pools' domain accounts, but they are still the staker's): floor(part × holding /
 * total). What the floors leave, and a part no one holds, carries to the next accrual. The amounts accrue
 * as pending rewards per user and token, in USDC atoms: entitlements kept in the module; no money moves
 * at accrual.
 *
 * Payout: once ConfigurePayouts sets an interval, a second timer (every `intervalMs` of journaled time,
 * aligned to its multiples) pays every pending amount from the live fee account (user 0, where the taker
 * fees are) to the holder's live account, in USDC atoms, and records it as paid. What the floors and the
 * carry left never leaves the fee account. An amount the fee account cannot cover stays pending (the fee
 * account only grows from fees and only pays these rewards, so this does not happen in practice).
 *
 * Bounty: PayBounty pays a verified report's reward in USDC from the bounty account domainUserId(11, 0)
 * (funded by journaled deposits) to the reporter's live account, once per report id.
 */
import { field, fieldCodec, type DomainCommandCodec, type FieldReader, type FieldWriter } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const rewardsDomainId = 11;
/** The asset fees are counted and rewards and bounties are paid in. */
export const rewardsAssetSymbol = 'USDC';

// Limits.
export const accrualIntervalMsMin = 60_000;
export const accrualIntervalMsMax = 7 * 86_400_000;
export const shareBpsMax = 10_000;
export const rewardTokensMax = 4;
/** Largest bounty: 1 000 000 USDC at 6 decimals. */
export const bountyAtomsMax = 1_000_000_000_000;
/** Bounty payments remembered (each report id is paid once). */
export const bountiesMax = 100_000;
/** Pending reward entries (user × token) kept. */
export const pendingEntriesMax = 4_000_000;

/** Paid-reward totals (user × token) kept. */
export const paidEntriesMax = 4_000_000;

export const RewardsCommandType = { configure: 11001, payBounty: 11002, configurePayouts: 11003 } as const;
export const RewardsEventType = { configured: 11001, accrued: 11002, bountyPaid: 11003, payoutsConfigured: 11004, paid: 11005 } as const;

export interface ConfigureRewards {
  intervalMs: number;
  shareBps: number;
  /** Asset ids of the tokens whose holders share (PLAT and PRED on the platform). */
  tokenAssetIds: number[];
}

/** Sets the payout timer: 0 stops payouts, otherwise an interval of accrualIntervalMsMin..accrualIntervalMsMax. */
export interface ConfigurePayouts {
  intervalMs: number;
}

export interface PayBounty {
  reportId: number;
  userId: number;
  amountAtoms: number;
}

export interface RewardsConfigured {
  intervalMs: number;
  shareBps: number;
  tokenAssetIds: number[];
}

/** One accrual: what was collected, what was shared, and each user's new pending amount per token. */
export interface RewardsAccrued {
  atMs: number;
  collectedAtoms: number;
  shareAtoms: number;
  distributedAtoms: number;
  carryAtoms: number;
  /** [userId, token asset id, atoms accrued now] */
  accruals: Array<[number, number, number]>;
}

export interface PayoutsConfigured {
  intervalMs: number;
  /** The next payout (0 when stopped). */
  nextPayoutMs: number;
}

/** One payout: what moved from the fee account to each holder, and what stayed pending. */
export interface RewardsPaid {
  atMs: number;
  /** USDC's asset id: the asset paid. */
  assetId: number;
  paidAtoms: number;
  /** Pending amounts the fee account could not cover (0 in practice). */
  unpaidAtoms: number;
  /** [userId, token asset id, atoms paid now] */
  payments: Array<[number, number, number]>;
}

export interface BountyPaid {
  reportId: number;
  userId: number;
  assetId: number;
  amountAtoms: number;
  paidMs: number;
}

export const RewardsResult = {
  invalidConfiguration: domainResult(
    rewardsDomainId,
    11001,
    'INVALID_REWARDS_CONFIGURATION',
    `accruals every ${accrualIntervalMsMin} to ${accrualIntervalMsMax} ms, a share of 0 to ${shareBpsMax} bps, 1 to ${rewardTokensMax} distinct known tokens other than ${rewardsAssetSymbol}`,
  ),
  invalidBounty: domainResult(rewardsDomainId, 11002, 'INVALID_BOUNTY', `a bounty is 1 to ${bountyAtomsMax} atoms of ${rewardsAssetSymbol} for a positive report id`),
  bountyAlreadyPaid: domainResult(rewardsDomainId, 11003, 'BOUNTY_ALREADY_PAID', 'this report has been paid'),
  bountyFundEmpty: domainResult(rewardsDomainId, 11004, 'BOUNTY_FUND_INSUFFICIENT', 'the bounty account does not hold this much'),
  tooManyBounties: domainResult(rewardsDomainId, 11005, 'TOO_MANY_BOUNTIES', `at most ${bountiesMax} bounty payments`),
  invalidPayouts: domainResult(rewardsDomainId, 11006, 'INVALID_PAYOUT_CONFIGURATION', `payouts every ${accrualIntervalMsMin} to ${accrualIntervalMsMax} ms, or 0 to stop them`),
} as const;

export const configureRewardsCodec: DomainCommandCodec<ConfigureRewards> = {
  type: RewardsCommandType.configure,
  name: 'ConfigureRewards',
  fieldCount: 3,
  isEncodable: (body) =>
    Number.isSafeInteger(body.intervalMs) &&
    Number.isSafeInteger(body.shareBps) &&
    Array.isArray(body.tokenAssetIds) &&
    body.tokenAssetIds.length <= rewardTokensMax &&
    body.tokenAssetIds.every((id) => Number.isSafeInteger(id)),
  write(writer: FieldWriter, body) {
    writer.integer(body.intervalMs);
    writer.integer(body.shareBps);
    writer.integers(body.tokenAssetIds);
  },
  read(reader: FieldReader) {
    return { intervalMs: reader.integer('intervalMs'), shareBps: reader.integer('shareBps'), tokenAssetIds: reader.integers('tokenAssetIds', rewardTokensMax) };
  },
};

export const configurePayoutsCodec: DomainCommandCodec<ConfigurePayouts> = fieldCodec<ConfigurePayouts>(RewardsCommandType.configurePayouts, 'ConfigurePayouts', { intervalMs: field.integer });

export const payBountyCodec: DomainCommandCodec<PayBounty> = {
  type: RewardsCommandType.payBounty,
  name: 'PayBounty',
  fieldCount: 3,
  isEncodable: (body) => Number.isSafeInteger(body.reportId) && Number.isSafeInteger(body.userId) && Number.isSafeInteger(body.amountAtoms),
  write(writer: FieldWriter, body) {
    writer.integer(body.reportId);
    writer.integer(body.userId);
    writer.integer(body.amountAtoms);
  },
  read(reader: FieldReader) {
    return { reportId: reader.integer('reportId'), userId: reader.integer('userId'), amountAtoms: reader.integer('amountAtoms') };
  },
};
