/**
 * The incentives' commands, events, result codes, limits and tier table (domain id 8: numbers 8000..8999).
 *
 * Everything here is live mode: a bot's tier, a stake, an airdrop and a boost belong to a user's live
 * account. Amounts are integer atoms of the asset named by its id; times are journaled milliseconds; rates
 * are basis points (1/10 000) and multipliers percent (100 = x1.00).
 *
 * Volume is the quote notional (atoms) of the user's exchange fills, as taker or maker, from the engine's
 * fills (port.onTrade): nothing a client can raise without trading.
 */
import { field, fieldCodec, type DomainCommandCodec, type FieldReader, type FieldSpec, type FieldWriter } from '../../core/domain.ts';
import { domainResult } from '../../core/results.ts';

export const incentivesDomainId = 8;

// Limits (a named maximum for everything).
/** Bots on the platform, and per user. */
export const botsMax = 100_000;
export const botsPerUserMax = 8;
/** Bot strings: a wallet address (EVM 42, Solana up to 44), a name, a strategy type and a description. */
export const walletCharsMax = 64;
export const botNameCharsMax = 64;
export const strategyCharsMax = 32;
export const descriptionCharsMax = 280;
/** Pools, airdrop campaigns and boosts the configuration may list. */
export const poolsMax = 16;
export const airdropsMax = 32;
export const boostsMax = 16;
/** Lockup options per pool (0 means no lockup), and the longest lockup. */
export const lockupOptionsMax = 4;
export const lockupDaysMax = 3_650;
/** A pool's APY, at most 1000 % in basis points; a multiplier, at most x10 in percent. */
export const apyBpsMax = 100_000;
export const multiplierPctMax = 1_000;
/** One amount (a stake, a capacity, an airdrop, a cost, a volume threshold): at most 10^15 atoms. */
export const amountAtomsMax = 1_000_000_000_000_000;
/** Staking positions (user × pool) the platform keeps. */
export const positionsMax = 1_000_000;
/** Users an airdrop campaign tracks the volume of. */
export const airdropUsersMax = 1_000_000;
/** A boost lasts one minute to 30 days; a request key is up to 64 characters; a user's last keys kept. */
export const boostMsMin = 60_000;
export const boostMsMax = 30 * 86_400_000;
export const requestKeyCharsMax = 64;
export const requestKeysPerUserMax = 16;
/** The tier's volume window: 30 days of journaled time, bucketed per day. */
export const dayMs = 86_400_000;
export const windowDays = 30;
export const yearMs = 365 * dayMs;
export const bpsDenominator = 10_000;

/**
 * Ledger accounts of the domain: domainUserId(8, index). The airdrop account pays claims; boost costs go
 * to the boost account; pool k (1..poolsMax) holds stakes in index 10 + 2k and pays rewards from 11 + 2k.
 */
export const airdropAccountIndex = 0;
export const boostAccountIndex = 1;
export const poolStakeAccountIndex = (poolId: number): number => 10 + 2 * poolId;
export const poolRewardAccountIndex = (poolId: number): number => 11 + 2 * poolId;

/**
 * Bot tiers over the account's 30-day volume (quote atoms; USDC has 6 decimals, so 10^10 atoms is 10 000
 * USDC). The discount comes off the engine's taker fee (10 bps by default: diamond pays 2 bps); the
 * reward multiplier applies to the owner's staking rewards.
 */
export const tiers = [
  { name: 'bronze', volumeAtoms: 0, discountBps: 0, rewardMultiplierPct: 100 },
  { name: 'silver', volumeAtoms: 10_000_000_000, discountBps: 2, rewardMultiplierPct: 110 },
  { name: 'gold', volumeAtoms: 100_000_000_000, discountBps: 4, rewardMultiplierPct: 125 },
  { name: 'platinum', volumeAtoms: 1_000_000_000_000, discountBps: 6, rewardMultiplierPct: 150 },
  { name: 'diamond', volumeAtoms: 10_000_000_000_000, discountBps: 8, rewardMultiplierPct: 200 },
] as const;

/** The tier of a 30-day volume: the highest whose threshold it reaches. */
export function tierOf(volumeAtoms: number): number {
  let tier = 0;
  for (let index = 1; index < tiers.length; index++) if (volumeAtoms >= tiers[index]!.volumeAtoms) tier = index;
  return tier;
}

export const BoostKind = { stakingApy: 0, feeDiscount: 1 } as const;
export type BoostKind = (typeof BoostKind)[keyof typeof BoostKind];
export const boostKindNames = ['staking_apy', 'fee_discount'] as const;

export const IncentivesCommandType = {
  configure: 8001,
  registerBot: 8002,
  stake: 8003,
  unstake: 8004,
  claimRewards: 8005,
  claimAirdrop: 8006,
  activateBoost: 8007,
} as const;

export const IncentivesEventType = {
  configured: 8001,
  botRegistered: 8002,
  tierChanged: 8003,
  staked: 8004,
  unstaked: 8005,
  rewardsClaimed: 8006,
  airdropClaimed: 8007,
  boostActivated: 8008,
  boostExpired: 8009,
} as const;

export interface PoolConfig {
  poolId: number;
  assetId: number;
  apyBps: number;
  minStakeAtoms: number;
  maxStakeAtoms: number;
  capacityAtoms: number;
  /** Lockup choices in days; 0 is "no lockup". */
  lockupDays: number[];
}

/** A campaign: whoever trades at least `minVolumeAtoms` in [windowStartMs, windowEndMs) may claim `amountAtoms` once before `claimEndMs`. */
export interface AirdropConfig {
  airdropId: number;
  assetId: number;
  amountAtoms: number;
  minVolumeAtoms: number;
  windowStartMs: number;
  windowEndMs: number;
  claimEndMs: number;
}

/** A boost: `kind` with `value` (a multiplier in percent, or bps off the taker fee) for `durationMs`, for `costAtoms` and at least tier `minTier`. */
export interface BoostConfig {
  boostId: number;
  kind: BoostKind;
  value: number;
  durationMs: number;
  costAssetId: number;
  costAtoms: number;
  minTier: number;
}

/** The catalogue (the shell reads it from fixtures/incentives.json). */
export interface IncentivesCatalogue {
  pools: PoolConfig[];
  airdrops: AirdropConfig[];
  boosts: BoostConfig[];
}

/**
 * The catalogue as journaled, once: each list flattened to integers with a fixed stride (a pool: id, asset
 * id, APY bps, min, max, capacity, then its lockup options padded with -1 to lockupOptionsMax; an airdrop:
 * id, asset id, amount, min volume, window start, window end, claim end; a boost: id, kind, value, duration
 * ms, cost asset id, cost, min tier). `encodeCatalogue` and `decodeCatalogue` convert.
 */
export interface ConfigureIncentives {
  pools: number[];
  airdrops: number[];
  boosts: number[];
}

export interface RegisterBot {
  userId: number;
  wallet: string;
  name: string;
  strategyType: string;
  description: string;
}

export interface Stake {
  userId: number;
  poolId: number;
  amountAtoms: number;
  lockupDays: number;
}

export interface Unstake {
  userId: number;
  poolId: number;
  amountAtoms: number;
}

/** Claims the pending rewards of one pool, or of every pool the user stakes in when `poolId` is 0. */
export interface ClaimRewards {
  userId: number;
  poolId: number;
}

export interface ClaimAirdrop {
  userId: number;
  airdropId: number;
}

/** `requestKey` is the client's Idempotency-Key: the same key again is answered ok and changes nothing. */
export interface ActivateBoost {
  userId: number;
  boostId: number;
  requestKey: string;
}

// Events.
export interface BotRegistered {
  botId: number;
  userId: number;
  wallet: string;
  name: string;
  strategyType: string;
  description: string;
  registeredMs: number;
}

/** The account's tier changed on one of its fills: the fee rate it places at from now on, and its volume. */
export interface TierChanged {
  userId: number;
  oldTier: number;
  newTier: number;
  volumeAtoms: number;
  takerFeeBps: number;
  rewardMultiplierPct: number;
}

export interface Staked {
  userId: number;
  poolId: number;
  amountAtoms: number;
  lockupDays: number;
  /** When the whole position may be unstaked (a new stake's lockup extends it, never shortens it). */
  unlockMs: number;
  positionAtoms: number;
  poolTotalAtoms: number;
}

export interface Unstaked {
  userId: number;
  poolId: number;
  amountAtoms: number;
  positionAtoms: number;
  poolTotalAtoms: number;
}

/** One pool's rewards paid to a user (a claim of every pool emits one per pool paid). */
export interface RewardsClaimed {
  userId: number;
  poolId: number;
  assetId: number;
  amountAtoms: number;
  claimedTotalAtoms: number;
}

export interface AirdropClaimed {
  userId: number;
  airdropId: number;
  assetId: number;
  amountAtoms: number;
}

export interface BoostActivated {
  userId: number;
  boostId: number;
  kind: BoostKind;
  value: number;
  expiresMs: number;
  requestKey: string;
  costAtoms: number;
}

export interface BoostExpired {
  userId: number;
  boostId: number;
  kind: BoostKind;
}

const r = (number: number, code: string, message: string) => domainResult(incentivesDomainId, number, code, message);

export const IncentivesResult = {
  invalidConfiguration: r(8001, 'INVALID_INCENTIVES_CONFIGURATION', 'the catalogue is journaled once, with distinct ids in range and amounts within the limits'),
  notConfigured: r(8002, 'INCENTIVES_NOT_CONFIGURED', 'the incentives catalogue has not been journaled yet'),
  invalidBot: r(8003, 'INVALID_BOT', `a wallet of 1 to ${walletCharsMax} characters and bounded name, strategy and description`),
  walletTaken: r(8004, 'BOT_WALLET_TAKEN', 'a bot with this wallet address is already registered'),
  tooManyBots: r(8005, 'TOO_MANY_BOTS', `at most ${botsPerUserMax} bots per user and ${botsMax} in all`),
  poolNotFound: r(8006, 'POOL_NOT_FOUND', 'no staking pool has this id'),
  invalidStake: r(8007, 'INVALID_STAKE', "the amount must lie within the pool's minimum and maximum stake, and the lockup be one of its options"),
  poolFull: r(8008, 'POOL_FULL', 'the stake would take the pool over its capacity'),
  stakeLocked: r(8010, 'STAKE_LOCKED', 'the stake is locked until its unlock time'),
  invalidUnstake: r(8011, 'INVALID_UNSTAKE', 'the amount must be positive and at most the staked amount'),
  nothingToClaim: r(8012, 'NOTHING_TO_CLAIM', 'no rewards are pending'),
  rewardsUnfunded: r(8013, 'REWARDS_UNFUNDED', "the pool's reward account holds less than the rewards pending; nothing was paid"),
  airdropNotFound: r(8014, 'AIRDROP_NOT_FOUND', 'no airdrop campaign has this id'),
  airdropIneligible: r(8015, 'AIRDROP_INELIGIBLE', "the account did not trade the campaign's volume in its window"),
  airdropClaimed: r(8016, 'AIRDROP_ALREADY_CLAIMED', 'this airdrop was already claimed by the account'),
  airdropEnded: r(8017, 'AIRDROP_ENDED', 'the claim period of this airdrop has ended'),
  airdropUnfunded: r(8018, 'AIRDROP_UNFUNDED', 'the airdrop account holds less than the amount; nothing was paid'),
  boostNotFound: r(8019, 'BOOST_NOT_FOUND', 'no boost has this id'),
  boostIneligible: r(8020, 'BOOST_INELIGIBLE', "the account's tier is below the boost's minimum"),
  boostActive: r(8021, 'BOOST_ALREADY_ACTIVE', 'a boost of this kind is already active for the account'),
  invalidRequestKey: r(8022, 'INVALID_REQUEST_KEY', `the request key must be 1 to ${requestKeyCharsMax} printable characters`),
  tooManyPositions: r(8023, 'TOO_MANY_STAKING_POSITIONS', `the platform keeps at most ${positionsMax} staking positions`),
} as const;

const printable = (value: unknown, charsMax: number): value is string =>
  typeof value === 'string' && value.length <= charsMax && /^[\x20-\x7e]*$/.test(value);
const integers = (values: unknown): values is number[] => Array.isArray(values) && values.every((value) => Number.isSafeInteger(value));

const poolStride = 6 + lockupOptionsMax;
const airdropStride = 7;
const boostStride = 7;

export function encodeCatalogue(catalogue: IncentivesCatalogue): ConfigureIncentives {
  return {
    pools: catalogue.pools.flatMap((pool) => [
      pool.poolId,
      pool.assetId,
      pool.apyBps,
      pool.minStakeAtoms,
      pool.maxStakeAtoms,
      pool.capacityAtoms,
      ...Array.from({ length: lockupOptionsMax }, (_unused, index) => pool.lockupDays[index] ?? -1),
    ]),
    airdrops: catalogue.airdrops.flatMap((a) => [a.airdropId, a.assetId, a.amountAtoms, a.minVolumeAtoms, a.windowStartMs, a.windowEndMs, a.claimEndMs]),
    boosts: catalogue.boosts.flatMap((b) => [b.boostId, b.kind, b.value, b.durationMs, b.costAssetId, b.costAtoms, b.minTier]),
  };
}

function rows(values: unknown, stride: number): number[][] | null {
  if (!integers(values) || values.length % stride !== 0) return null;
  const out: number[][] = [];
  for (let index = 0; index < values.length; index += stride) out.push(values.slice(index, index + stride));
  return out;
}

/** The catalogue of a journaled body, or null when a list is not whole rows of integers (the rules are checked by the module). */
export function decodeCatalogue(body: ConfigureIncentives): IncentivesCatalogue | null {
  const pools = rows(body.pools, poolStride);
  const airdrops = rows(body.airdrops, airdropStride);
  const boosts = rows(body.boosts, boostStride);
  if (pools === null || airdrops === null || boosts === null) return null;
  return {
    pools: pools.map((row) => ({
      poolId: row[0]!,
      assetId: row[1]!,
      apyBps: row[2]!,
      minStakeAtoms: row[3]!,
      maxStakeAtoms: row[4]!,
      capacityAtoms: row[5]!,
      lockupDays: row.slice(6).filter((days) => days !== -1),
    })),
    airdrops: airdrops.map((row) => ({
      airdropId: row[0]!,
      assetId: row[1]!,
      amountAtoms: row[2]!,
      minVolumeAtoms: row[3]!,
      windowStartMs: row[4]!,
      windowEndMs: row[5]!,
      claimEndMs: row[6]!,
    })),
    boosts: boosts.map((row) => ({
      boostId: row[0]!,
      kind: row[1]! as BoostKind,
      value: row[2]!,
      durationMs: row[3]!,
      costAssetId: row[4]!,
      costAtoms: row[5]!,
      minTier: row[6]!,
    })),
  };
}

export const configureIncentivesCodec: DomainCommandCodec<ConfigureIncentives> = {
  type: IncentivesCommandType.configure,
  name: 'ConfigureIncentives',
  fieldCount: 3,
  isEncodable: (body) =>
    integers(body.pools) &&
    body.pools.length <= poolsMax * poolStride &&
    integers(body.airdrops) &&
    body.airdrops.length <= airdropsMax * airdropStride &&
    integers(body.boosts) &&
    body.boosts.length <= boostsMax * boostStride,
  write(writer: FieldWriter, body) {
    writer.integers(body.pools);
    writer.integers(body.airdrops);
    writer.integers(body.boosts);
  },
  read(reader: FieldReader) {
    return {
      pools: reader.integers('pools', poolsMax * poolStride),
      airdrops: reader.integers('airdrops', airdropsMax * airdropStride),
      boosts: reader.integers('boosts', boostsMax * boostStride),
    };
  },
};

export const registerBotCodec: DomainCommandCodec<RegisterBot> = {
  type: IncentivesCommandType.registerBot,
  name: 'RegisterBot',
  fieldCount: 5,
  isEncodable: (body) =>
    Number.isSafeInteger(body.userId) &&
    printable(body.wallet, walletCharsMax) &&
    printable(body.name, botNameCharsMax) &&
    printable(body.strategyType, strategyCharsMax) &&
    printable(body.description, descriptionCharsMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.string(body.wallet);
    writer.string(body.name);
    writer.string(body.strategyType);
    writer.string(body.description);
  },
  read(reader: FieldReader) {
    return {
      userId: reader.integer('userId'),
      wallet: reader.string('wallet', walletCharsMax),
      name: reader.string('name', botNameCharsMax),
      strategyType: reader.string('strategyType', strategyCharsMax),
      description: reader.string('description', descriptionCharsMax),
    };
  },
};

/** A codec of a command made only of integer fields, in the order given. */
function integerCodec<Body extends object>(type: number, name: string, names: readonly (keyof Body & string)[]): DomainCommandCodec<Body> {
  return fieldCodec<Body>(type, name, Object.fromEntries(names.map((key) => [key, field.integer])) as { [K in keyof Body]: FieldSpec });
}

export const stakeCodec = integerCodec<Stake>(IncentivesCommandType.stake, 'Stake', ['userId', 'poolId', 'amountAtoms', 'lockupDays']);
export const unstakeCodec = integerCodec<Unstake>(IncentivesCommandType.unstake, 'Unstake', ['userId', 'poolId', 'amountAtoms']);
export const claimRewardsCodec = integerCodec<ClaimRewards>(IncentivesCommandType.claimRewards, 'ClaimRewards', ['userId', 'poolId']);
export const claimAirdropCodec = integerCodec<ClaimAirdrop>(IncentivesCommandType.claimAirdrop, 'ClaimAirdrop', ['userId', 'airdropId']);

export const activateBoostCodec: DomainCommandCodec<ActivateBoost> = {
  type: IncentivesCommandType.activateBoost,
  name: 'ActivateBoost',
  fieldCount: 3,
  isEncodable: (body) => Number.isSafeInteger(body.userId) && Number.isSafeInteger(body.boostId) && printable(body.requestKey, requestKeyCharsMax),
  write(writer: FieldWriter, body) {
    writer.integer(body.userId);
    writer.integer(body.boostId);
    writer.string(body.requestKey);
  },
  read(reader: FieldReader) {
    return { userId: reader.integer('userId'), boostId: reader.integer('boostId'), requestKey: reader.string('requestKey', requestKeyCharsMax) };
  },
};

export const incentivesCodecs = [
  configureIncentivesCodec,
  registerBotCodec,
  stakeCodec,
  unstakeCodec,
  claimRewardsCodec,
  claimAirdropCodec,
  activateBoostCodec,
] as const;

export { printable };
