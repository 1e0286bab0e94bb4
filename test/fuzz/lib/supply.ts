import type { RpcClient } from '../../../node/client/index.js';
import { addressFromPublicKey, formatAddress, isAddress } from '../../../node/protocol/address.js';
import type { Genesis } from '../../../node/protocol/genesis.js';

/**
 * Supply accounting (docs/protocol.md, "Amounts and fees"): there is no block reward and nothing
 * is burned, since every fee goes to the block's proposer, so at any committed height the balances
 * plus the stakes and unbonding amounts of every account that ever held anything add up to the
 * genesis total. The accounts are found from the chain itself: the genesis accounts and
 * validators, then every block's proposer and every committed transaction's sender and the
 * accounts its events name.
 */

export function genesisTotal(g: Genesis): bigint {
  return g.accounts.reduce((n, a) => n + a.balance, 0n) + g.validators.reduce((n, v) => n + v.stake, 0n);
}

export interface SupplyReport {
  total: bigint;
  accounts: number;
  blocks: number;
  transactions: number;
  /** committed Transfer receipts with status success, by sender address */
  transfersBySender: Map<string, number>;
}

export async function supplyAt(client: RpcClient, g: Genesis, lastSeq: number): Promise<SupplyReport> {
  const accounts = new Set<string>([...g.accounts.map((a) => formatAddress(a.address)), ...g.validators.map((v) => formatAddress(v.address))]);
  const transfersBySender = new Map<string, number>();
  let transactions = 0;
  for (let seq = 1; seq <= lastSeq; seq++) {
    const block = await client.getBlockBySeq(seq);
    if (!block) throw new Error(`no committed block at seq ${seq}`);
    accounts.add(block.proposer);
    await Promise.all(
      block.transactions.map(async (hash) => {
        const [tx, receipt] = await Promise.all([client.getTransaction(hash), client.getReceipt(hash)]);
        if (!tx || !receipt) throw new Error(`committed transaction ${hash} has no ${tx ? 'receipt' : 'body'}`);
        transactions++;
        const sender = addressFromPublicKey(Uint8Array.from(tx.sender_pubkey as number[]));
        accounts.add(sender);
        for (const e of receipt.events as unknown as Array<Record<string, unknown>>) {
          for (const v of Object.values(e)) if (isAddress(v)) accounts.add(v as string);
          if (e.type === 'Transfer' && receipt.status === 'success') transfersBySender.set(sender, (transfersBySender.get(sender) ?? 0) + 1);
        }
      }),
    );
  }
  let total = 0n;
  for (const a of accounts) total += await client.getBalance(a);
  for (const v of await client.getValidators()) total += v.staked + v.unbonding;
  return { total, accounts: accounts.size, blocks: lastSeq, transactions, transfersBySender };
}
