import type { Logger } from '../../node/logging.js';
import type { ChainView } from '../../node/plugins/chain-view.js';
import type { PluginDb } from '../common/store/tables.js';
import type { WalletConfig } from './config.js';

/** What every part of the wallet plugin is handed by the composition root (index.ts). */
export interface WalletBase {
  config: WalletConfig;
  db: PluginDb;
  log: Logger;
  /** committed chain state; the wallet reads the chain only through this and the block stream */
  chain: ChainView;
  network: string;
  chainId: string;
  /** admits a signed transaction's JSON text to the mempool; its hash */
  submit(txJson: string): Promise<string>;
  publicUrl(): string;
  now(): number;
}
