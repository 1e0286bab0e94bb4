import { keyPairFromSeed } from '../crypto/ed25519.js';
import { addressFromPublicKey } from '../protocol/address.js';
import type { UnsignedTransaction } from '../protocol/transaction.js';
import { buildTransfer, signAndEncode, waitForReceipt, type TxBase, type WaitOptions } from './builder.js';
import type { RpcClient } from './rpc-client.js';
import type { Receipt } from './types.js';

/** What `send` hands the builder: the sender's key and nonce, and the chain id (buildValidatorRegister takes it). */
export interface SendBase extends TxBase {
  nonce: bigint;
  chainId: string;
}

export interface SendingAccount {
  readonly address: string;
  readonly publicKey: Uint8Array;
  /**
   * Builds with the next nonce, signs locally and submits; resolves to the transaction hash once
   * the node admitted it. E.g. `send((b) => buildTransfer({ ...b, to, amount }))`.
   */
  send(build: (base: SendBase) => UnsignedTransaction): Promise<string>;
  /**
   * viem's `sendTransaction({ to, value })`: a Transfer of `value` smallest units (parseTokens)
   * to the base58 address `to`. Resolves once the node admitted it, with the hash and a `wait`.
   */
  sendTransaction(args: { to: string; value: bigint }): Promise<SentTransaction>;
  /** `send` for any kind, with a `wait`: `submit((b) => buildStake({ ...b, amount }))`. */
  submit(build: (base: SendBase) => UnsignedTransaction): Promise<SentTransaction>;
}

/** An admitted transaction: its hash, and a wait for its receipt (waitForReceipt's options). */
export interface SentTransaction {
  hash: string;
  /** the receipt once the transaction is committed; its `status` may still be a failure */
  wait(options?: WaitOptions): Promise<Receipt>;
}

/**
 * An account that fills in the chain id and the nonce and sends (after viem's local accounts).
 * The chain id is read once. The nonce comes from the node's pending nonce, then is counted up
 * locally after each admitted send; sends run one at a time in call order, so several started
 * back to back get consecutive nonces rather than ALREADY_KNOWN or a nonce gap. After a refused
 * send the next one reads the pending nonce again.
 */
export function createAccount(client: Pick<RpcClient, 'chainInfo' | 'getNonce' | 'sendTransaction' | 'getReceipt'>, seed: Uint8Array): SendingAccount {
  const { publicKey } = keyPairFromSeed(seed);
  const address = addressFromPublicKey(publicKey);
  let chainId: Promise<string> | undefined;
  let next: bigint | undefined;
  let queue: Promise<unknown> = Promise.resolve();
  const sendNow = async (build: (base: SendBase) => UnsignedTransaction): Promise<string> => {
    chainId ??= client.chainInfo().then((i) => i.chain_id);
    const id = await chainId.catch((err: unknown) => {
      chainId = undefined;
      throw err;
    });
    const nonce = next ?? (await client.getNonce(address, { pending: true }));
    try {
      const signed = signAndEncode(id, build({ senderPubkey: Uint8Array.from(publicKey), nonce, chainId: id }), seed);
      const hash = await client.sendTransaction(signed.json);
      next = signed.tx.nonce + 1n;
      return hash;
    } catch (err) {
      next = undefined;
      throw err;
    }
  };
  const send = (build: (base: SendBase) => UnsignedTransaction): Promise<string> => {
    const result = queue.then(() => sendNow(build));
    queue = result.catch(() => undefined);
    return result;
  };
  const submit = async (build: (base: SendBase) => UnsignedTransaction): Promise<SentTransaction> => {
    const hash = await send(build);
    return { hash, wait: (options) => waitForReceipt(client, hash, options) };
  };
  return {
    address,
    publicKey: Uint8Array.from(publicKey),
    send,
    submit,
    sendTransaction: ({ to, value }) => submit((b) => buildTransfer({ ...b, to, amount: value })),
  };
}
