import type { CliIo } from '../io.js';

export const devnetHelp = `ledger devnet: run a local network of several validators

Not available yet: multi-validator devnet comes with the consensus networking work.
Meanwhile "ledger init --validators N" writes a genesis and keys for N validators.`;

export async function runDevnet(_argv: string[], io: CliIo): Promise<number> {
  io.stderr('ledger devnet: not available yet: multi-validator devnet comes with the consensus networking work\n');
  return 2;
}
