import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildDidCreate, buildTransfer, didForPublicKey, generateSeed, keyPairFromSeed, RpcClient, signAndEncode, UNIT, waitForReceipt } from '../../../node/client/index.js';
import { devKey, runCli, startNodeProcess, tempDataDir, type NodeProcess } from '../harness.js';

/**
 * A real node with the KYC plugin for the e2e tests: `ledger init` (which funds the plugin's
 * issuer account at genesis), a config.json with the test's KYC options, then `ledger start`.
 */

export const OPERATOR_TOKEN = 'op_e2e_0123456789abcdefghijklmnop';

export interface KycNode {
  dir: string;
  node: NodeProcess;
  kyc: string;
  rpc: RpcClient;
  restart(opts?: { kill9?: boolean }): Promise<void>;
}

export interface KycNodeOptions {
  /** the plugin's port, the same at every restart (pick it with freePortRange); default 0: any free port, a new one each start */
  kycPort?: number;
  /** node settings besides the plugin's, written to config.json (e.g. `consensus`) */
  node?: Record<string, unknown>;
}

export async function startKycNode(t: { teardown(fn: () => unknown): void }, kycOptions: Record<string, unknown> = {}, o: KycNodeOptions = {}): Promise<KycNode> {
  const dir = await tempDataDir(t);
  const init = await runCli(['init', '--data-dir', dir]);
  if (init.code !== 0) throw new Error(`ledger init failed: ${init.stderr}`);
  const kycSection = { enabled: true, operatorToken: OPERATOR_TOKEN, webhooks: { retryOffsetsSeconds: [0, 0.5, 1, 1.5, 2, 2.5] }, ...kycOptions };
  await writeFile(join(dir, 'config.json'), JSON.stringify({ ...o.node, plugins: { kyc: kycSection } }, null, 2));
  const start = () => startNodeProcess(t, dir, { plugins: { kyc: o.kycPort ?? 0 }, logLevel: 'warn' });
  const out: KycNode = {
    dir,
    node: await start(),
    kyc: '',
    rpc: undefined as unknown as RpcClient,
    async restart(opts = {}) {
      if (opts.kill9) await out.node.kill9();
      else await out.node.stop();
      out.node = await start();
      out.kyc = out.node.plugins.kyc!;
      out.rpc = new RpcClient(out.node.url);
    },
  };
  out.kyc = out.node.plugins.kyc!;
  if (!out.kyc) throw new Error(`the kyc plugin did not start:\n${out.node.stderr()}`);
  out.rpc = new RpcClient(out.node.url);
  return out;
}

/** A subject with its DID on chain (funded from the dev account), as a wallet would have. */
export async function subjectOnChain(n: KycNode, nonce: number): Promise<{ did: string; seed: Uint8Array }> {
  const dev = await devKey(n.dir);
  const chainId = (await n.rpc.chainInfo()).chain_id;
  const seed = generateSeed();
  const pair = keyPairFromSeed(seed);
  const did = didForPublicKey('testnet', pair.publicKey);
  const send = async (unsigned: Parameters<typeof signAndEncode>[1], key: Uint8Array) => {
    const s = signAndEncode(chainId, unsigned, key);
    await n.rpc.sendTransaction(s.json);
    const receipt = await waitForReceipt(n.rpc, s.hash, { timeoutMs: 30_000 });
    if (receipt.status !== 'success') throw new Error(`setup transaction failed: ${receipt.status}`);
  };
  await send(buildTransfer({ senderPubkey: dev.publicKey, nonce, to: did.split(':')[3]!, amount: 10n * UNIT }), dev.seed);
  await send(buildDidCreate({ senderPubkey: pair.publicKey, nonce: 0 }), seed);
  return { did, seed };
}
