/**
 * /ws/vault/nav: the public vaults' NAV stream on the project's topic stream (per-topic seq, a snapshot
 * then deltas, JSON or msgpack, bad frames answered). One channel, `nav`, with two kinds of topic:
 *
 *   {"action":"subscribe","channel":"nav"}                     every public vault (subscribed on connect)
 *   {"action":"subscribe","channel":"nav","vault":"<addr|slug>"}  one vault
 *
 * Messages: `snapshot` (the NAVs of the topic's vaults), then `nav_update` on each revaluation (strategy
 * run, deposit, withdrawal), `position_opened` (a strategy's buy fill) and `trade_closed` (a strategy's or
 * an unwind's sell fill), and `heartbeat` every VAULT_NAV_HEARTBEAT_MS. Paper vaults never appear here:
 * only their owners see them.
 */
import { ApiError } from '../http/errors.ts';
import { TopicStream, type StreamMessage, type TopicChoice } from '../ws/topic-stream.ts';
import { formatAtoms, formatSteps } from '../../engine/core/units.ts';
import { virtualAssets, virtualShares } from '../../engine/domains/vaults/commands.ts';
import type { Markets } from '../../engine/core/units.ts';
import type { VaultMeta } from './fixture.ts';
import type { TradeView, VaultChange, VaultView, VaultsView } from './view.ts';
import { shareStep } from './routes.ts';

export interface VaultStreamOptions {
  readonly view: VaultsView;
  readonly metas: readonly VaultMeta[];
  readonly markets: Markets;
  readonly clock: () => number;
  readonly backpressureBytes: number;
  readonly connectionsMax: number;
}

const iso = (ms: number): string => new Date(ms).toISOString();
// Topic keys are app-wide in uWS: the arena's stream has a `nav` topic too, so the vaults' keys are prefixed.
const allKey = 'vault-nav';

export class VaultNavStream {
  readonly stream: TopicStream<true>;

  constructor(private readonly options: VaultStreamOptions) {
    this.stream = new TopicStream<true>({
      path: '/ws/vault/nav',
      channels: ['nav'],
      backpressureBytes: options.backpressureBytes,
      connectionsMax: options.connectionsMax,
      route: () => true,
      topicOf: (_route, _channel, message) => this.topicOf(message),
      snapshot: (_route, _channel, key) => this.snapshot(key),
      initialTopics: () => [{ channel: 'nav', choice: { key: allKey, fields: {} } }],
    });
    options.view.onChange((change) => this.publish(change));
  }

  private topicOf(message: Readonly<StreamMessage>): TopicChoice {
    const wanted = message['vault'];
    if (wanted === undefined) return { key: allKey, fields: {} };
    const vault = typeof wanted === 'string' ? this.publicVault(wanted) : undefined;
    if (vault === undefined) throw new ApiError(404, 'VAULT_NOT_FOUND', `vault: no vault ${JSON.stringify(wanted)}`);
    return { key: `${allKey}:${vault.slug}`, fields: { vault: vault.slug } };
  }

  private publicVault(key: string): VaultView | undefined {
    const wanted = key.toLowerCase();
    const meta = this.options.metas.find((entry) => entry.address === wanted || entry.slug === wanted);
    const vault = this.options.view.bySlug(meta?.slug ?? wanted);
    return vault !== undefined && vault.ownerUserId === 0 ? vault : undefined;
  }

  private navRecord(vault: VaultView): StreamMessage {
    const quote = this.options.markets.pairById(vault.pairIds[0]!)!.quote;
    const priceAtoms = Number((BigInt(vault.navAtoms + virtualAssets) * 1_000_000_000n) / BigInt(vault.totalShares + virtualShares));
    return {
      vault: vault.slug,
      address: this.options.metas.find((meta) => meta.slug === vault.slug)?.address ?? null,
      nav: formatAtoms(vault.navAtoms, quote),
      share_price: formatAtoms(priceAtoms, quote),
      shares_outstanding: formatSteps(vault.totalShares, shareStep),
      timestamp: iso(vault.updatedMs),
    };
  }

  private publicVaults(): VaultView[] {
    return [...this.options.view.vaults.values()].filter((vault) => vault.ownerUserId === 0);
  }

  private snapshot(key: string): StreamMessage {
    const vaults = key === allKey ? this.publicVaults() : this.publicVaults().filter((vault) => `${allKey}:${vault.slug}` === key);
    return { type: 'snapshot', vaults: vaults.map((vault) => this.navRecord(vault)), timestamp: iso(this.options.clock()) };
  }

  private send(vault: VaultView, message: StreamMessage): void {
    this.stream.publish(allKey, message);
    this.stream.publish(`${allKey}:${vault.slug}`, message);
  }

  private publish(change: VaultChange): void {
    const vault = change.vault;
    if (vault.ownerUserId !== 0) return;
    if (change.kind === 'nav') {
      this.send(vault, { type: 'nav_update', ...this.navRecord(vault) });
      return;
    }
    this.send(vault, this.fillMessage(vault, change.trade));
  }

  private fillMessage(vault: VaultView, trade: TradeView): StreamMessage {
    const pair = this.options.markets.pairById(trade.pairId)!;
    return {
      type: trade.side === 0 ? 'position_opened' : 'trade_closed',
      vault: vault.slug,
      asset: pair.base.symbol,
      side: trade.side === 0 ? 'buy' : 'sell',
      quantity: formatSteps(trade.filledLots, pair.lot),
      notional: formatAtoms(trade.filledNotionalAtoms, pair.quote),
      order_id: String(trade.orderId),
      unwind: trade.unwind,
      timestamp: iso(trade.ms),
    };
  }

  /** The fixed-interval heartbeat, on the all-vaults topic and every single-vault topic. */
  heartbeat(): void {
    const message = { type: 'heartbeat', timestamp: iso(this.options.clock()) };
    this.stream.publish(allKey, message);
    for (const vault of this.publicVaults()) this.stream.publish(`${allKey}:${vault.slug}`, message);
  }
}
