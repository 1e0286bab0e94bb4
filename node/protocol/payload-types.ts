import type { ByteReader, ByteWriter } from './bytes.js';
import type { CredentialType } from './credential-types.js';
import type { ClaimResult, VerificationRequest } from './verification.js';

/** The payload types, apart from payloads.ts so that the codecs it registers need not import it. */

/** An issuer's BBS+ key, carried by a credential request for selective disclosure. */
export interface BbsKey {
  /** 96-byte BLS12-381 G2 public key */
  publicKey: Uint8Array;
  /** how many messages the issuer signs per credential */
  messageCount: number;
}

export interface ServiceEndpoint {
  id: string;
  type: string;
  serviceEndpoint: string;
}

/** One of the two signed votes of equivocation evidence: the block it voted for and its BLS signature. */
export interface SignedVoteRef {
  height: number;
  blockHash: Uint8Array;
  signature: Uint8Array;
}

/** A double proposal is also a double vote: a proposal's signature is its leader's vote on the block. */
export type EquivocationKind = 'double-vote' | 'double-proposal';

export type Payload =
  | { kind: 'Transfer'; to: Uint8Array; amount: bigint }
  | { kind: 'Stake'; amount: bigint }
  | { kind: 'Unstake'; amount: bigint }
  | { kind: 'DidCreate'; service: ServiceEndpoint[] }
  | { kind: 'DidDeactivate'; did: string }
  /** the DID's guardians (DIDs); no guardians, threshold 0 and delay 0 remove the policy */
  | { kind: 'SetRecoveryPolicy'; did: string; guardians: string[]; threshold: number; delayBlocks: number }
  /** guardians' signatures of protocol/recovery.ts's message, moving `did` to `newPublicKey` */
  | { kind: 'DidRecover'; did: string; newPublicKey: Uint8Array; signatures: Array<{ guardian: string; signature: Uint8Array }> }
  /** the sender's BLS vote key and its proof of possession (protocol/validator-keys.ts) */
  | { kind: 'ValidatorRegister'; blsPublicKey: Uint8Array; proofOfPossession: Uint8Array }
  /** two vote signatures of `validator` in `round` for different blocks (the shape of ledger_getEvidence) */
  | { kind: 'SubmitEvidence'; evidence: EquivocationKind; epoch: number; round: number; validator: Uint8Array; first: SignedVoteRef; second: SignedVoteRef }
  /** issued by the sender, who must hold the issuer DID's key; `kycLevel` is 0 unless the type is KYCCredential */
  | {
      kind: 'CredentialRequest';
      credentialId: Uint8Array;
      credentialType: CredentialType;
      kycLevel: number;
      subject: string;
      issuer: string;
      hash: Uint8Array;
      evidenceDigest: Uint8Array;
      fee: bigint;
      statusList: number;
      statusIndex: number;
      bbs?: BbsKey;
    }
  /** sent by a committee member: its VRF proof over the request's seed and its signature of the credential hash */
  | { kind: 'CredentialAttest'; credentialId: Uint8Array; vrfProof: Uint8Array; signature: Uint8Array }
  | { kind: 'CredentialRevoke'; credentialId: Uint8Array }
  /** links the sender's KYC credential to its validator record: the KYC rule of eligibility */
  | { kind: 'ValidatorQualify'; credentialId: Uint8Array }
  /** a relying party's signed request; the transaction's signature is the request's (docs/protocol.md) */
  | { kind: 'VerificationRequest'; request: UnsignedVerificationRequest }
  /** a committee member's claim results for a presentation, with its VRF proof and signature (verification-answer.ts) */
  | ({ kind: 'VerificationAnswer' } & VerificationAnswerItem)
  /** a committee member's answers to several requests in one transaction: each applies or is refused on its own */
  | { kind: 'VerificationAnswerBatch'; answers: VerificationAnswerItem[] };

/** One answer: the claim results a member found for a presentation, and its signature over them. */
export interface VerificationAnswerItem {
  requestId: string;
  /** absent when the whole set is the committee (at most 21 validators) */
  vrfProof?: Uint8Array;
  presentationHash: Uint8Array;
  claims: ClaimResult[];
  signature: Uint8Array;
}

/** A request as a transaction carries it: chain id and nonce set, the signature in the transaction. */
export type UnsignedVerificationRequest = Omit<VerificationRequest, 'signature' | 'chainId' | 'nonce'> & { chainId: string; nonce: number };

export type PayloadKind = Payload['kind'];
export type PayloadOf<K extends PayloadKind> = Extract<Payload, { kind: K }>;

/** `standard` writes addresses as base58; `raw` (ledger_getTransaction) writes them as byte arrays. */
export type JsonForm = 'standard' | 'raw';

export interface PayloadCodec<K extends PayloadKind = PayloadKind> {
  kind: K;
  tag: number;
  encode(w: ByteWriter, p: PayloadOf<K>): void;
  decode(r: ByteReader): PayloadOf<K>;
  fromJson(body: Record<string, unknown>): PayloadOf<K>;
  toJson(p: PayloadOf<K>, form: JsonForm): Record<string, unknown>;
}
