import t from 'tap';
import { keyPairFromSeed } from '../../node/crypto/ed25519.js';
import { createLogger } from '../../node/logging.js';
import { addressBytesFromPublicKey } from '../../node/protocol/address.js';
import { bytesEqual, toHex, utf8 } from '../../node/protocol/bytes.js';
import { parseDid } from '../../node/protocol/did.js';
import type { DidRecord } from '../../node/protocol/records.js';
import { canonicalJson } from '../../node/protocol/verification.js';
import type { VerificationRecord } from '../../node/protocol/verification-records.js';
import type { Answerer } from '../../node/verification/answerer.js';
import { PresentationIntake, type PresentationNetwork } from '../../node/verification/intake.js';
import type { Presentation } from '../../node/verification/presentation.js';
import { bbsEntry, makeHolder, NETWORK, pendingRecord, present } from './harness.js';

/**
 * Presentation routing (docs/network.md, "Presentation routing"): what enters from the RPC goes to
 * every peer, what a validator sent goes no further, what came from outside the set is relayed.
 * The network is the PresentationNetwork interface, recorded; the p2p streams are the e2e tests'.
 */

const log = createLogger({ level: 'silent' });
const holder = await makeHolder({ seedByte: 41, uuid: '00000000-0000-4000-8000-000000000041', birthDate: '1990-05-17' });
const validator = addressBytesFromPublicKey(keyPairFromSeed(new Uint8Array(32).fill(1)).publicKey);
const follower = addressBytesFromPublicKey(keyPairFromSeed(new Uint8Array(32).fill(2)).publicKey);

const pending = (requestId: string): VerificationRecord => pendingRecord(holder.did, requestId, [{ type: 'KYCCredential', constraints: { minimumLevel: 2 }, acceptZKProof: true }], { threshold: 3, committeeSize: 4 });

const didRecord: DidRecord = { did: holder.did, publicKey: holder.keys.publicKey, service: [], active: true, createdMs: 0, updatedMs: 0, versionId: 1, txHash: new Uint8Array(32) };
const holderDid = async (id: Uint8Array) => (bytesEqual(id, parseDid(holder.did).identifier) ? didRecord : undefined);

/** requests known only later in a test: a peer's presentation for one waits for it */
const lateKnown = new Set<string>();

function setup() {
  const sends: Array<{ except?: string }> = [];
  const penalties: string[] = [];
  const answered: string[] = [];
  const counts: string[] = [];
  let deliver: (bytes: Uint8Array, from: Uint8Array) => void = () => undefined;
  let handled: () => void = () => undefined;
  const p2p: PresentationNetwork = {
    sendPresentation: (_bytes, except) => {
      sends.push(except ? { except: toHex(except) } : {});
      return 3;
    },
    onPresentation: (handler) => void (deliver = handler),
    penalize: (address, reason) => {
      penalties.push(`${toHex(address)} ${reason}`);
      handled();
    },
  };
  const intake = new PresentationIntake({
    network: NETWORK,
    chain: {
      verification: async (id) => (id.startsWith('req-') || lateKnown.has(id) ? pending(id) : id.startsWith('closed-') ? { ...pending(id), status: 'final' } : undefined),
      did: holderDid,
    },
    p2p,
    answerer: { onPresentation: async (p: Presentation) => (answered.push(p.requestId), 'answered' as const) } as unknown as Answerer,
    isValidator: async (address) => bytesEqual(address, validator),
    log,
    count: (source) => {
      counts.push(source);
      handled();
    },
  });
  // a peer's presentation is handled in the background: wait for its count or penalty, then for
  // what follows it in the same turn (the answerer, the relay)
  const fromPeer = async (p: Presentation | string, from: Uint8Array) => {
    const done = new Promise<void>((resolve) => (handled = resolve));
    deliver(typeof p === 'string' ? utf8(p) : utf8(canonicalJson(p)), from);
    await done;
    await new Promise((r) => setImmediate(r));
  };
  return { intake, sends, penalties, answered, counts, fromPeer };
}

const presentation = async (requestId: string) => present(holder, [await bbsEntry(holder, 0, ['kycLevel'], { requestId })], requestId);

t.test("the RPC's presentation goes to every peer and to this validator's answerer, once", async (t) => {
  const s = setup();
  const p = await presentation('req-rpc');
  t.same(s.intake.submit(p), { peers: 3, answeringHere: true });
  t.same(s.intake.submit(p), { peers: 0, answeringHere: true }, 'the same presentation again is not sent again');
  t.same(s.sends, [{}]);
  t.same(s.answered, ['req-rpc']);
});

t.test('a validator peer\'s presentation is answered here and not relayed: every validator got it', async (t) => {
  const s = setup();
  await s.fromPeer(await presentation('req-v'), validator);
  t.same(s.answered, ['req-v']);
  t.same(s.sends, [], 'no relay among the validators');
  t.same(s.counts, ['peer']);
});

t.test('a presentation from outside the set is relayed to the other peers; a copy seen before is not', async (t) => {
  const s = setup();
  const p = await presentation('req-f');
  await s.fromPeer(p, follower);
  await s.fromPeer(p, validator);
  t.same(s.sends, [{ except: toHex(follower) }], 'relayed once, not back to its sender');
  t.same(s.answered, ['req-f']);
  t.same(s.counts, ['peer', 'duplicate']);
});

t.test('an undecodable presentation costs the peer; a closed or unknown request does not', async (t) => {
  const s = setup();
  await s.fromPeer('{not json', follower);
  await s.fromPeer(await presentation('closed-1'), follower);
  t.same(s.penalties, [`${toHex(follower)} undecodable-presentation`]);
  t.same(s.counts, ['refused'], 'the closed request is refused, and the peer not blamed');
  t.same(s.sends, []);
  t.same(s.answered, []);
});

t.test('a presentation ahead of its request: the RPC waits for a request this node holds, and refuses any other after a short grace', async (t) => {
  let known = false;
  const intake = new PresentationIntake({
    network: NETWORK,
    chain: {
      verification: async (id) => (known ? pending(id) : undefined),
      did: holderDid,
    },
    expected: (id) => id === 'req-held',
    log,
  });
  const waited = intake.precheck(await presentation('req-held'));
  let settled = false;
  void waited.then(() => (settled = true), () => (settled = true));
  await new Promise((r) => setTimeout(r, 100));
  t.notOk(settled, 'still waiting while the request is not in this node\'s state');
  known = true;
  t.equal((await waited).request.requestId, 'req-held', 'prechecked once it is');
  known = false;
  await t.rejects(intake.precheck(await presentation('req-unheld')), { code: 'UNKNOWN_VERIFICATION_REQUEST' }, 'a request this node does not hold is refused');
});

t.test("a peer's presentation ahead of its request here is answered as soon as the request is known here", async (t) => {
  const s = setup();
  const p = await presentation('late-1');
  const done = s.fromPeer(p, validator);
  await new Promise((r) => setTimeout(r, 60));
  t.same(s.answered, [], 'not before');
  lateKnown.add('late-1');
  await done;
  t.same(s.answered, ['late-1']);
  t.same(s.counts, ['peer']);
});
