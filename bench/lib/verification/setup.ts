import { randomBytes, randomUUID } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { buildCredentialRequest, buildDidCreate, buildTransfer, signAndEncode, waitForReceipt, type RpcClient } from '../../../node/client/index.js';
import { generateAccountKey, type AccountKey } from '../../../node/config/keyfile.js';
import { bbsKeyPair, bbsSign, type BbsProofInput } from '../../../node/crypto/bbs.js';
import { UNIT } from '../../../node/protocol/amount.js';
import { toHex } from '../../../node/protocol/bytes.js';
import { KYC_BBS_HEADER, KYC_BBS_MESSAGE_COUNT, KYC_BBS_STRUCTURAL, kycBbsIndex, kycBbsMessages } from '../../../node/protocol/kyc-bbs.js';
import { MIN_VERIFICATION_FEE, signVerificationRequest, type VerificationRequest } from '../../../node/protocol/verification.js';
import { presentationHeader, signPresentation, type Presentation } from '../../../node/verification/presentation.js';
import type { LocalCluster } from '../chaos/cluster.js';
import type { DeriveTask } from './derive-worker.js';

/**
 * bench/verification's chain and its requests, made before anything is measured (the steps of
 * test/e2e/verification.test.ts): an issuer, the dApps and the subjects funded from the devnet's
 * dev key with their DIDs; one KYC level-2 credential per subject with a BBS key (12 messages)
 * registered through a CredentialRequest and the committee; its BBS signature over the KYC
 * messages. Then every request of every run, signed with its requestId, the dApp's nonce and
 * chainId, and the subject's presentation of it: a BBS proof disclosing the structural fields,
 * kycLevel and ageOver18, bound by its presentation header to chainId, requestId and holder.
 */

/** What the requests ask: KYC level 2 and at least 18, a zero-knowledge proof accepted. */
export const REQUIRED_CLAIMS = [{ type: 'KYCCredential', constraints: { minimumLevel: 2, minimumAge: 18 }, acceptZKProof: true }];
/** What each presentation discloses: the structural fields, the level and ageOver18. */
export const DISCLOSED = [...KYC_BBS_STRUCTURAL, 'kycLevel', 'ageOver18'] as const;

export interface PreparedRequest {
  requestId: string;
  /** which dApp signed it: a dApp sends all its requests to one node, as a client keeps one RPC endpoint */
  dapp: number;
  request: VerificationRequest;
  presentation: Presentation;
}

export interface VerificationSetup {
  chainId: string;
  /** every request of every run, in the order they are to be sent */
  prepared: PreparedRequest[];
  /** the first presentation's proof as the node verifies it: the unit of BBS work timed in the run */
  sampleProof: BbsProofInput;
  seconds: { parties: number; credentials: number; prepare: number };
}

export interface SetupOptions {
  subjects: number;
  dapps: number;
  /** how many requests to prepare, over all runs */
  requests: number;
  validForBlocks: number | undefined;
  log(message: string): void;
}

async function sendAll(rpc: RpcClient, chainId: string, txs: Array<{ unsigned: Parameters<typeof signAndEncode>[1]; seed: Uint8Array }>, what: string): Promise<void> {
  const hashes: string[] = [];
  for (const t of txs) hashes.push(await rpc.sendTransaction(signAndEncode(chainId, t.unsigned, t.seed).json));
  for (const h of hashes) {
    const r = await waitForReceipt(rpc, h, { timeoutMs: 120_000 });
    if (r.status !== 'success') throw new Error(`${what}: transaction ${h} is ${r.status}`);
  }
}

export async function setupVerification(c: LocalCluster, o: SetupOptions): Promise<VerificationSetup> {
  const rpc = c.nodes[0]!.client;
  const chainId = c.chainId;
  const network = c.dev.network;
  const t0 = performance.now();

  // parties: funded by the dev key (consecutive nonces), then each creates its DID
  const issuer = generateAccountKey(network);
  const dapps = Array.from({ length: o.dapps }, () => generateAccountKey(network));
  const subjects = Array.from({ length: o.subjects }, () => generateAccountKey(network));
  let devNonce = BigInt(await rpc.getNonce(c.dev.address));
  const perDapp = Math.ceil(o.requests / o.dapps);
  const fund = (to: AccountKey, amount: bigint) => ({ unsigned: buildTransfer({ senderPubkey: c.dev.publicKey, nonce: devNonce++, to: to.address, amount }), seed: c.dev.seed });
  await sendAll(
    rpc,
    chainId,
    [
      // a KYC level-2 registration costs 5 tokens
      fund(issuer, BigInt(o.subjects * 5 + 100) * UNIT),
      // each request holds its fee until it is final, and pays a transaction fee
      ...dapps.map((d) => fund(d, 100n * UNIT + BigInt(perDapp) * (MIN_VERIFICATION_FEE + UNIT / 100n))),
      ...subjects.map((s) => fund(s, 10n * UNIT)),
    ],
    'funding',
  );
  await sendAll(
    rpc,
    chainId,
    [issuer, ...dapps, ...subjects].map((k) => ({ unsigned: buildDidCreate({ senderPubkey: k.publicKey, nonce: 0 }), seed: k.seed })),
    'DidCreate',
  );
  const tParties = performance.now();
  o.log(`${1 + o.dapps + o.subjects} parties funded with their DIDs in ${((tParties - t0) / 1000).toFixed(1)} s`);

  // one KYC level-2 credential per subject, BBS-registered: the issuer's requests back to back
  const bbs = await bbsKeyPair();
  const start = await rpc.nextRevocationIndex(issuer.did);
  const attrs = { issuanceDate: '2026-01-01T00:00:00Z', expirationDate: '2030-01-01T00:00:00Z' };
  const credentials = subjects.map((s, i) => ({ uuid: randomUUID(), subject: s, position: start.status_index + i }));
  await sendAll(
    rpc,
    chainId,
    credentials.map((cr, i) => ({
      unsigned: buildCredentialRequest({
        senderPubkey: issuer.publicKey,
        nonce: 1 + i,
        credentialId: cr.uuid,
        credentialType: 'KYCCredential',
        kycLevel: 2,
        subjectDid: cr.subject.did,
        issuerDid: issuer.did,
        // the BBS path checks the record, the disclosed fields and the proof, not the W3C body's hash
        hash: randomBytes(32),
        evidenceDigest: new Uint8Array(32).fill(1),
        statusList: start.status_list,
        statusIndex: cr.position,
        bbs: { publicKey: bbs.publicKey, messageCount: KYC_BBS_MESSAGE_COUNT },
      }),
      seed: issuer.seed,
    })),
    'CredentialRequest',
  );
  const ids = credentials.map((cr) => `urn:ledger:credential:${cr.uuid}`);
  await c.waitFor(
    async () => {
      const answers = await rpc.batch(ids.map((id) => ({ method: 'ledger_getCredentialRequest', params: [id] })));
      return answers.every((a) => a.ok && (a.result as { status?: string } | null)?.status === 'registered');
    },
    120_000,
    `the registration of ${ids.length} credentials`,
    250,
  );
  // every node has them before a presentation can reach it
  await c.waitForSeq(
    c.nodes.map((n) => n.index),
    await c.seq(0),
    60_000,
  );
  const signed = await Promise.all(
    credentials.map(async (cr, i) => {
      const messages = kycBbsMessages({ id: ids[i]!, issuer: issuer.did, subject: cr.subject.did, ...attrs, kycLevel: 2, jurisdiction: 'DE', birthDate: '1990-05-17', verifiedAttributes: ['governmentId', 'liveness'] });
      const signature = await bbsSign({ secretKey: bbs.secretKey, publicKey: bbs.publicKey, header: KYC_BBS_HEADER, messages });
      return { id: ids[i]!, subject: cr.subject, messages, signature };
    }),
  );
  const tCredentials = performance.now();
  o.log(`${ids.length} KYC level-2 credentials registered (BBS, ${KYC_BBS_MESSAGE_COUNT} messages) and signed in ${((tCredentials - tParties) / 1000).toFixed(1)} s`);

  // every request, and its presentation: the proofs derived on every core before the clock starts
  const indexes = DISCLOSED.map(kycBbsIndex).sort((a, b) => a - b);
  const dappNonce = dapps.map(() => 1);
  const pool = new Piscina({ filename: fileURLToPath(new URL('./derive-worker.js', import.meta.url)), maxThreads: availableParallelism(), minThreads: availableParallelism() });
  let prepared: PreparedRequest[];
  try {
    prepared = await Promise.all(
      Array.from({ length: o.requests }, async (_, j) => {
        const cred = signed[j % signed.length]!;
        const d = j % dapps.length;
        const dapp = dapps[d]!;
        const requestId = randomUUID();
        const request = signVerificationRequest(
          {
            version: '1.0',
            requestId,
            timestamp: Date.now(),
            requester: { did: dapp.did, purpose: 'bench: KYC level 2 and at least 18' },
            subject: { did: cred.subject.did },
            requiredClaims: REQUIRED_CLAIMS,
            fee: String(MIN_VERIFICATION_FEE),
            chainId,
            nonce: dappNonce[d]!++,
            ...(o.validForBlocks === undefined ? {} : { validForBlocks: o.validForBlocks }),
          },
          dapp.seed,
        );
        const task: DeriveTask = {
          publicKey: bbs.publicKey,
          signature: cred.signature,
          header: KYC_BBS_HEADER,
          messages: cred.messages,
          presentationHeader: presentationHeader(chainId, requestId, cred.subject.did),
          disclosedIndexes: indexes,
        };
        const proof = (await pool.run(task)) as Uint8Array;
        const presentation = signPresentation(
          {
            version: '1.0',
            requestId,
            holder: cred.subject.did,
            credentials: [{ claim: 0, proofType: 'bbs', credentialId: cred.id, disclosed: indexes.map((i) => ({ index: i, message: new TextDecoder().decode(cred.messages[i]) })), proof: toHex(proof) }],
          },
          cred.subject.seed,
        );
        return { requestId, dapp: d, request, presentation };
      }),
    );
  } finally {
    await pool.destroy();
  }
  const tPrepare = performance.now();
  o.log(`${prepared.length} requests signed and their presentations derived in ${((tPrepare - tCredentials) / 1000).toFixed(1)} s`);

  const first = prepared[0]!;
  const entry = first.presentation.credentials[0] as { disclosed: Array<{ index: number; message: string }>; proof: string };
  const sampleProof: BbsProofInput = {
    proof: Uint8Array.from(Buffer.from(entry.proof, 'hex')),
    publicKey: bbs.publicKey,
    header: KYC_BBS_HEADER,
    presentationHeader: presentationHeader(chainId, first.requestId, first.presentation.holder),
    disclosed: entry.disclosed.map((d) => ({ index: d.index, message: new TextEncoder().encode(d.message) })),
    totalMessageCount: KYC_BBS_MESSAGE_COUNT,
  };
  const s = (a: number, b: number) => Math.round((b - a) / 100) / 10;
  return { chainId, prepared, sampleProof, seconds: { parties: s(t0, tParties), credentials: s(tParties, tCredentials), prepare: s(tCredentials, tPrepare) } };
}
