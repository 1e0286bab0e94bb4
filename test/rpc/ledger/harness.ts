import type { Evidence } from '../../../node/consensus/types.js';
import type { Test } from 'tap';
import type { JSONRPCResponse } from 'json-rpc-2.0';
import { buildGenesisBlock } from '../../../node/chain/genesis-block.js';
import { keyPairFromSeed } from '../../../node/crypto/ed25519.js';
import { Mempool, type MempoolOptions } from '../../../node/mempool/index.js';
import { UNIT } from '../../../node/protocol/amount.js';
import { ADDRESS_LENGTH, addressBytesFromPublicKey } from '../../../node/protocol/address.js';
import { didForIdentifier } from '../../../node/protocol/did.js';
import { parseJson, stringifyJson } from '../../../node/protocol/json.js';
import { didKey, encodeDid, encodeValidator, validatorKey } from '../../../node/protocol/records.js';
import { createMethods, type RpcContext } from '../../../node/rpc/ledger/index.js';
import { createVerifyPool } from '../../../node/rpc/verification/pool.js';
import { createRpcServer } from '../../../node/rpc/server.js';
import { ChainStore } from '../../../node/state/chain-store.js';
import { openDatabase } from '../../../node/state/db.js';
import { COUNTER, VALIDATORS, nextBlock } from '../../fixtures/chain-blocks.js';

/** The ledger_* methods over a real ChainStore on the in-memory database, called through the lossless JSON codec. */

export const CHAIN = 'rpc-methods-test';
export const NETWORK = 'testnet';
export const funder = keyPairFromSeed(new Uint8Array(32).fill(9));
export const FUNDER = addressBytesFromPublicKey(funder.publicKey);
export const DID_ID = new Uint8Array(ADDRESS_LENGTH).fill(0x44);
export const DID = didForIdentifier(NETWORK, DID_ID);
export const UNBONDER = new Uint8Array(ADDRESS_LENGTH).fill(0x55);

export type Call = (method: string, params?: unknown) => Promise<JSONRPCResponse>;

/** A store with genesis only, or with two blocks (a DID and an unbonding validator in block 2). */
export async function setup(t: Test, o: { blocks?: boolean; allowSubjectEnumeration?: boolean; genesis?: boolean; evidence?: Evidence[]; mempool?: Partial<MempoolOptions>; presentations?: RpcContext['presentations']; verificationBacklogBusy?: number } = {}) {
  const db = await openDatabase('memory');
  t.teardown(() => db.close());
  const store = await ChainStore.open(db, { chainId: CHAIN });
  if (o.genesis !== false) {
    const g = await buildGenesisBlock({
      genesisTimeMs: 1_000,
      accounts: [
        { address: COUNTER, balance: 0n },
        { address: FUNDER, balance: 1_000n * UNIT },
      ],
      validators: VALIDATORS,
    });
    await store.initGenesis(g.block, g.changes, g.treeNodes);
  }
  if (o.blocks) {
    await store.commitBlock(await nextBlock(store));
    const did = {
      did: DID,
      publicKey: funder.publicKey,
      service: [{ id: `${DID}#pod`, type: 'SolidPod', serviceEndpoint: 'https://pod.example' }],
      active: true,
      createdMs: 1_002,
      updatedMs: 1_002,
      versionId: 1,
      txHash: new Uint8Array(32).fill(1),
    };
    const validator = {
      staked: 7n,
      unbonding: [
        { amount: 2n ** 70n, releaseMs: 5_000 },
        { amount: 3n, releaseMs: 6_000 },
      ],
      reputation: 900,
      active: false,
      ed25519PublicKey: new Uint8Array(0),
      blsPublicKey: new Uint8Array(0),
    };
    const puts = [
      { key: didKey(DID_ID), value: encodeDid(did) },
      { key: validatorKey(UNBONDER), value: encodeValidator(validator) },
    ];
    await store.commitBlock(await nextBlock(store, { heightStep: 3, puts }));
  }
  const mempool = new Mempool({ chainId: CHAIN, network: NETWORK, state: store.stateReader(), ...o.mempool });
  const ctx: RpcContext = {
    chainId: CHAIN,
    network: NETWORK,
    version: '9.9.9-test',
    startedAtMs: Date.now() - 5_000,
    store,
    mempool,
    allowSubjectEnumeration: o.allowSubjectEnumeration ?? false,
    evidence: () => o.evidence ?? [],
    // on the calling thread: these tests check answers, not where the work runs (test/rpc/verification/)
    verifier: createVerifyPool({ threads: 0, maxQueuedCost: 100_000 }),
    ...(o.presentations ? { presentations: o.presentations } : {}),
    ...(o.verificationBacklogBusy === undefined ? {} : { verificationBacklogBusy: o.verificationBacklogBusy }),
  };
  const server = createRpcServer({ methods: createMethods(ctx), maxEventLoopLagMs: 0 });
  let id = 0;
  // Through the lossless JSON codec both ways, as over HTTP, so bigint results are checked as the wire carries them.
  const call: Call = async (method, params = []) => {
    const request = parseJson(stringifyJson({ jsonrpc: '2.0', id: ++id, method, params }));
    return parseJson(stringifyJson(await server.handle(request))) as JSONRPCResponse;
  };
  return { store, mempool, call, server };
}

export function result(r: JSONRPCResponse): unknown {
  if (r.error) throw new Error(`unexpected error ${JSON.stringify(r.error)}`);
  return r.result;
}

export function errorCode(r: JSONRPCResponse): number | undefined {
  return r.error?.code;
}

