/**
 * Strategy vaults as a domain: its descriptor (engine/domains/index.ts lists it). The shell's vaults module
 * (shell/vaults) configures the strategies' period, creates the fixture's vaults and serves the routes.
 */
import type { DomainDescriptor } from '../../core/domain.ts';
import { VaultsEventType, configureVaultsCodec, createVaultCodec, depositToVaultCodec, unwindVaultCodec, vaultsDomainId, withdrawFromVaultCodec } from './commands.ts';
import { VaultsSimulation } from './simulation.ts';
import { Vaults } from './vaults.ts';

export const vaultsDomain: DomainDescriptor = {
  id: vaultsDomainId,
  name: Vaults.domainName,
  formatVersion: 1,
  commands: [configureVaultsCodec, createVaultCodec, depositToVaultCodec, withdrawFromVaultCodec, unwindVaultCodec],
  eventNames: {
    [VaultsEventType.configured]: 'VaultsConfigured',
    [VaultsEventType.created]: 'VaultCreated',
    [VaultsEventType.deposited]: 'VaultDeposited',
    [VaultsEventType.withdrawn]: 'VaultWithdrawn',
    [VaultsEventType.traded]: 'VaultTraded',
    [VaultsEventType.nav]: 'VaultNav',
    [VaultsEventType.navSampled]: 'VaultNavSampled',
  },
  create: (port) => new Vaults(port),
  simulation: () => new VaultsSimulation(),
};

export { Vaults, vaultsOf } from './vaults.ts';
export * from './commands.ts';
