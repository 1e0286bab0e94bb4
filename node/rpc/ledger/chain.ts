import { NATIVE_TOKEN } from '../../protocol/amount.js';
import { blockToJson, type Block } from '../../protocol/block.js';
import { toHex } from '../../protocol/bytes.js';
import { genesisToJson } from '../../protocol/genesis.js';
import { LedgerError } from '../../errors.js';
import { param, uint } from '../params.js';
import { defineMethod, type RpcMethod } from '../server.js';
import type { RpcContext } from './context.js';

export function chainMethods(ctx: RpcContext): RpcMethod[] {
  const json = (b: Block | undefined) => (b ? blockToJson(ctx.chainId, b) : null);
  return [
    defineMethod({ name: 'ledger_getLatestBlock', params: [], handler: async () => json((await ctx.store.blocks.latest())?.block) }),
    defineMethod({ name: 'ledger_getBlock', params: [param('height', uint())], handler: async (h) => json(await ctx.store.blocks.byHeight(h)) }),
    defineMethod({ name: 'ledger_getBlockBySeq', params: [param('seq', uint())], handler: async (s) => json(await ctx.store.blocks.bySeq(s)) }),
    defineMethod({
      name: 'ledger_canonHead',
      params: [],
      handler: () => {
        const head = ctx.store.head();
        return head ? { seq: head.seq, hash: toHex(head.hash) } : null;
      },
    }),
    defineMethod({ name: 'ledger_blockNumber', params: [], handler: () => ctx.store.head()?.height ?? 0 }),
    defineMethod({
      name: 'ledger_chainInfo',
      params: [],
      handler: () => ({
        chain_id: ctx.chainId,
        native_token: { ...NATIVE_TOKEN },
        genesis_hash: ctx.store.genesisHash ? toHex(ctx.store.genesisHash) : null,
        latest_block: ctx.store.head()?.height ?? 0,
        version: ctx.version,
      }),
    }),
    defineMethod({
      name: 'ledger_nodeInfo',
      params: [],
      handler: () => {
        const p2p = ctx.p2p?.();
        return {
          version: ctx.version,
          uptime_seconds: Math.floor((Date.now() - ctx.startedAtMs) / 1000),
          rss_bytes: process.memoryUsage.rss(),
          ...(p2p ? { p2p: { peer_id: p2p.peerId, addresses: p2p.addresses } } : {}),
        };
      },
    }),
    defineMethod({
      name: 'ledger_getGenesis',
      params: [],
      handler: () => {
        if (!ctx.genesis) throw new LedgerError('GENESIS_UNAVAILABLE', 'this node does not serve its genesis', 'not_found');
        return genesisToJson(ctx.genesis);
      },
    }),
  ];
}
