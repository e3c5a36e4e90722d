/**
 * The wallet generator: the adapter that makes a clone's wallet address. The embedded default derives an
 * EVM-format address (0x and 40 hex digits) from fresh random bytes; a custodial signer would replace it.
 * Generation can fail (a signer out of reach), so the clone flow calls it before it creates anything:
 * a failure answers 503 WALLET_GENERATION_RETRY and a retry can succeed. BOTS_WALLET_FAULT=N makes the
 * next N generations fail, so tests and drills reach that path.
 */
import { randomBytes } from 'node:crypto';

export class WalletGenerationError extends Error {
  constructor() {
    super('wallet generation failed');
    this.name = 'WalletGenerationError';
  }
}

export class WalletGenerator {
  constructor(private faultsLeft: number) {}

  /** A new wallet address; throws WalletGenerationError while injected faults remain. */
  generate(): string {
    if (this.faultsLeft > 0) {
      this.faultsLeft--;
      throw new WalletGenerationError();
    }
    return `0x${randomBytes(20).toString('hex')}`;
  }
}
