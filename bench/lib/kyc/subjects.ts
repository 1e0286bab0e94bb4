import { join } from 'node:path';
import { buildDidCreate, buildTransfer, didForPublicKey, generateSeed, keyPairFromSeed, RpcClient, signAndEncode, UNIT, waitForReceipt } from '../../../node/client/index.js';
import { readKeyFile } from '../../../node/config/keyfile.js';

/**
 * `count` subjects with active DIDs on a `ledger init` network: each gets 1 LGR from the
 * developer account (`keys/dev.json` of `dataDir`, nonces from `firstNonce`) and creates its DID,
 * one receipt at a time. Returns the DIDs, for sessions whose pass yields a credential.
 */
export async function subjectsOnChain(rpc: RpcClient, dataDir: string, count: number, firstNonce = 0): Promise<string[]> {
  const dev = await readKeyFile(join(dataDir, 'keys', 'dev.json'));
  const { chain_id: chainId } = await rpc.chainInfo();
  const subjects: string[] = [];
  for (let i = 0; i < count; i++) {
    const seed = generateSeed();
    const pair = keyPairFromSeed(seed);
    const did = didForPublicKey('testnet', pair.publicKey);
    for (const [unsigned, key] of [
      [buildTransfer({ senderPubkey: dev.publicKey, nonce: firstNonce + i, to: did.split(':')[3]!, amount: UNIT }), dev.seed],
      [buildDidCreate({ senderPubkey: pair.publicKey, nonce: 0 }), seed],
    ] as const) {
      const s = signAndEncode(chainId, unsigned, key);
      await rpc.sendTransaction(s.json);
      await waitForReceipt(rpc, s.hash, { timeoutMs: 30_000 });
    }
    subjects.push(did);
  }
  return subjects;
}
