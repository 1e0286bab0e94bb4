import type { StateReader } from '../execution/overlay.js';
import { readAccount, readDid, readValidator } from '../execution/state-access.js';
import { toHex } from '../protocol/bytes.js';
import { parseDid } from '../protocol/did.js';
import type { Transaction } from '../protocol/transaction.js';
import type { StateView } from './checks.js';

/** Reads, in parallel, the committed state that the checks of `txs` (all from `sender`) need. */
export async function readView(state: StateReader, network: string, sender: Uint8Array, txs: readonly Transaction[]): Promise<StateView> {
  let needValidator = false;
  const didIds = new Map<string, Uint8Array>();
  for (const tx of txs) {
    const p = tx.payload;
    if (p.kind === 'Unstake') needValidator = true;
    if (p.kind === 'DidCreate') didIds.set(toHex(sender), sender);
    const did =
      p.kind === 'DidDeactivate' || p.kind === 'SetRecoveryPolicy' ? p.did : p.kind === 'CredentialRequest' ? p.issuer : p.kind === 'VerificationRequest' ? p.request.requester.did : undefined;
    if (did !== undefined) {
      const parsed = parseDid(did);
      if (parsed.network === network) didIds.set(toHex(parsed.identifier), parsed.identifier);
    }
  }
  if (!needValidator && didIds.size === 0) return { account: await readAccount(state, sender), dids: new Map() };
  const ids = [...didIds];
  const [account, validator, ...dids] = await Promise.all([
    readAccount(state, sender),
    needValidator ? readValidator(state, sender) : Promise.resolve(undefined),
    ...ids.map(([, id]) => readDid(state, id)),
  ]);
  const view: StateView = { account, dids: new Map(ids.map(([hex], i) => [hex, dids[i] ?? null])) };
  if (needValidator) view.validator = validator ?? null;
  return view;
}
