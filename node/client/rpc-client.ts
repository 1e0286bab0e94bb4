import { parseJson, stringifyJson } from '../protocol/json.js';
import { parseRetryAfter, RpcError, RpcTransportError } from './errors.js';
import {
  normalizeReceipt,
  normalizeValidator,
  toBigInt,
  type BbsCredentialProofResult,
  type Block,
  type CanonHead,
  type ChainInfo,
  type CredentialRecord,
  type CredentialRequestStatus,
  type CredentialVerification,
  type DidDocument,
  type DisclosedMessage,
  type ConsensusStatus,
  type Epoch,
  type NodeInfo,
  type RawTransaction,
  type Receipt,
  type RecoveryPolicy,
  type PresentationJson,
  type SubmittedPresentation,
  type SubmittedVerificationRequest,
  type Validator,
  type VerificationRequestView,
  type VerificationResponse,
  type VerificationStatusFilter,
} from './types.js';
import type { VerificationRequest } from '../protocol/verification.js';

export interface RpcClientOptions {
  /** default: the global fetch */
  fetch?: typeof fetch;
  /** per request; default 30 s */
  timeoutMs?: number;
  headers?: Record<string, string>;
}

export interface RpcCall {
  method: string;
  params?: unknown[];
}

export type BatchResult<T = unknown> = { ok: true; result: T } | { ok: false; error: RpcError };

interface ResponseObject {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown; data?: unknown };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function toRpcError(error: ResponseObject['error'], method?: string): RpcError {
  const code = typeof error?.code === 'number' ? error.code : typeof error?.code === 'bigint' ? Number(error.code) : -32603;
  const message = typeof error?.message === 'string' ? error.message : 'unknown error';
  return new RpcError(code, message, error?.data, method);
}

/**
 * A JSON-RPC 2.0 client for a ledger node over HTTP. Requests and responses go through the
 * lossless JSON codec, so integers beyond 2^53 (amounts) arrive as bigint, never rounded.
 */
export class RpcClient {
  private nextId = 1;
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;
  private readonly headers: Record<string, string>;

  constructor(
    readonly url: string,
    options: RpcClientOptions = {},
  ) {
    this.fetchImpl = options.fetch ?? globalThis.fetch;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
  }

  private async post(body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await this.fetchImpl(this.url, {
        method: 'POST',
        headers: this.headers,
        body: stringifyJson(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const reason = (err as Error).name === 'TimeoutError' ? `no answer within ${this.timeoutMs} ms` : ((err as { cause?: Error }).cause?.message ?? (err as Error).message);
      throw new RpcTransportError(`cannot reach ${this.url}: ${reason}`, this.url, undefined, { cause: err });
    }
    const text = await response.text();
    // a 503 or 429 without a JSON-RPC body (a proxy, a refused notification) still says when to retry
    const retry = response.status === 503 || response.status === 429 ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
    const options = retry !== undefined ? { retryAfterMs: retry } : {};
    let parsed: unknown;
    try {
      parsed = parseJson(text);
    } catch {
      throw new RpcTransportError(`${this.url} answered HTTP ${response.status} with a body that is not JSON`, this.url, response.status, options);
    }
    // Some servers answer JSON-RPC errors with a 4xx/5xx status (a busy node: 503); the body still decides.
    if (!response.ok && !(isObject(parsed) && 'error' in parsed) && !Array.isArray(parsed)) {
      throw new RpcTransportError(`${this.url} answered HTTP ${response.status}`, this.url, response.status, options);
    }
    return parsed;
  }

  /** One call; resolves with `result` or throws RpcError (the node's error) or RpcTransportError. */
  async call<T = unknown>(method: string, params: unknown[] = []): Promise<T> {
    const id = this.nextId++;
    const answer = await this.post({ jsonrpc: '2.0', method, params, id });
    if (!isObject(answer)) throw new RpcTransportError(`${this.url} answered with something other than a JSON-RPC response`, this.url);
    const r = answer as ResponseObject;
    if (r.error !== undefined) throw toRpcError(r.error, method);
    if (!('result' in r)) throw new RpcTransportError(`${this.url} answered with neither result nor error`, this.url);
    return r.result as T;
  }

  /** Several calls in one request; results come back in the order of `calls`. */
  async batch(calls: RpcCall[]): Promise<BatchResult[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const answer = await this.post(calls.map((c, i) => ({ jsonrpc: '2.0', method: c.method, params: c.params ?? [], id: first + i })));
    if (!Array.isArray(answer)) {
      if (isObject(answer) && 'error' in answer) throw toRpcError((answer as ResponseObject).error);
      throw new RpcTransportError(`${this.url} answered a batch with something other than an array`, this.url);
    }
    const byId = new Map<number, ResponseObject>();
    for (const item of answer) if (isObject(item) && typeof item.id === 'number') byId.set(item.id, item as ResponseObject);
    return calls.map((c, i): BatchResult => {
      const r = byId.get(first + i);
      if (!r) return { ok: false, error: new RpcError(-32603, 'the batch answer has no response for this call', undefined, c.method) };
      return r.error !== undefined ? { ok: false, error: toRpcError(r.error, c.method) } : { ok: true, result: r.result };
    });
  }

  async getBalance(address: string): Promise<bigint> {
    return toBigInt(await this.call('ledger_getBalance', [address]), 'balance');
  }

  /**
   * The sender's next nonce. `pending: true` also counts its transactions pending in this node's
   * mempool (ledger_getNonce "pending"), so several can be sent back to back; the default is the
   * committed next nonce.
   */
  async getNonce(address: string, options: { pending?: boolean } = {}): Promise<bigint> {
    return toBigInt(await this.call('ledger_getNonce', options.pending ? [address, 'pending'] : [address]), 'nonce');
  }

  getLatestBlock(): Promise<Block | null> {
    return this.call('ledger_getLatestBlock');
  }

  getBlock(height: number): Promise<Block | null> {
    return this.call('ledger_getBlock', [height]);
  }

  getBlockBySeq(seq: number): Promise<Block | null> {
    return this.call('ledger_getBlockBySeq', [seq]);
  }

  canonHead(): Promise<CanonHead | null> {
    return this.call('ledger_canonHead');
  }

  blockNumber(): Promise<number> {
    return this.call('ledger_blockNumber');
  }

  chainInfo(): Promise<ChainInfo> {
    return this.call('ledger_chainInfo');
  }

  nodeInfo(): Promise<NodeInfo> {
    return this.call('ledger_nodeInfo');
  }

  async getReceipt(txHash: string): Promise<Receipt | null> {
    return normalizeReceipt(await this.call<Receipt | null>('ledger_getReceipt', [txHash]));
  }

  getTransaction(txHash: string): Promise<RawTransaction | null> {
    return this.call('ledger_getTransaction', [txHash]);
  }

  /**
   * `txJson` is the JSON text of a signed transaction (see signAndEncode); resolves with its hash.
   * A full mempool or a busy node throws RpcError with `busy` true and `retryAfterMs`: send the same
   * text again after that long.
   */
  sendTransaction(txJson: string): Promise<string> {
    return this.call('ledger_sendTransaction', [txJson]);
  }

  didResolve(did: string): Promise<DidDocument | null> {
    return this.call('ledger_didResolve', [did]);
  }

  /** The DID's guardians, threshold, delay and pending recovery; null when it has no policy. */
  getRecoveryPolicy(did: string): Promise<RecoveryPolicy | null> {
    return this.call('ledger_getRecoveryPolicy', [did]);
  }

  credentialVerify(credentialId: string): Promise<CredentialVerification | null> {
    return this.call('ledger_credentialVerify', [credentialId]);
  }

  /** Throws RpcError -32001 on a node whose operator has not enabled subject enumeration. */
  credentialsBySubject(did: string): Promise<CredentialRecord[]> {
    return this.call('ledger_credentialsBySubject', [did]);
  }

  credentialsByIssuer(did: string): Promise<CredentialRecord[]> {
    return this.call('ledger_credentialsByIssuer', [did]);
  }

  /** Any status (pending, registered, expired); null for an unknown id. */
  getCredentialRequest(credentialId: string): Promise<CredentialRequestStatus | null> {
    return this.call('ledger_getCredentialRequest', [credentialId]);
  }

  /** The revocation position the issuer's next CredentialRequest must name. */
  nextRevocationIndex(issuerDid: string): Promise<{ status_list: number; status_index: number }> {
    return this.call('ledger_nextRevocationIndex', [issuerDid]);
  }

  async getValidators(): Promise<Validator[]> {
    const list = await this.call<Validator[]>('ledger_getValidators');
    return list.map((v) => normalizeValidator(v)!);
  }

  async getValidatorStake(address: string): Promise<Validator | null> {
    return normalizeValidator(await this.call<Validator | null>('ledger_getValidatorStake', [address]));
  }

  /** The current epoch, or with `height` the epoch that height is in (EPOCH_NOT_KEPT when the node no longer holds it). */
  getEpoch(height?: number): Promise<Epoch | null> {
    return this.call('ledger_getEpoch', height === undefined ? [] : [height]);
  }

  /** null from a node that runs no consensus engine */
  getConsensusStatus(): Promise<ConsensusStatus | null> {
    return this.call('ledger_getConsensusStatus');
  }

  bbsVerifyProof(args: {
    proofHex: string;
    pubkeyHex: string;
    headerHex: string;
    phHex: string;
    disclosedMessages: DisclosedMessage[];
    totalMessageCount: number;
  }): Promise<boolean> {
    return this.call('ledger_bbsVerifyProof', [args.proofHex, args.pubkeyHex, args.headerHex, args.phHex, args.disclosedMessages, args.totalMessageCount]);
  }

  bbsVerifyCredentialProof(args: {
    credentialId: string;
    proofHex: string;
    headerHex: string;
    phHex: string;
    disclosedMessages: DisclosedMessage[];
  }): Promise<BbsCredentialProofResult | null> {
    return this.call('ledger_bbsVerifyCredentialProof', [args.credentialId, args.proofHex, args.headerHex, args.phHex, args.disclosedMessages]);
  }

  /**
   * Submits a signed request (buildVerificationRequest): it enters the mempool as the requester's
   * own transaction. Refusals name their cause (docs/rpc.md, "Verification requests").
   */
  submitVerificationRequest(request: VerificationRequest): Promise<SubmittedVerificationRequest> {
    return this.call('ledger_submitVerificationRequest', [request]);
  }

  /** The subject's requests, newest first, at most 100; `status` defaults to pending. */
  getVerificationRequests(subjectDid: string, status?: VerificationStatusFilter): Promise<VerificationRequestView[]> {
    return this.call('ledger_getVerificationRequests', status === undefined ? [subjectDid] : [subjectDid, status]);
  }

  /** One request in any status; null for an unknown id. */
  getVerificationRequest(requestId: string): Promise<VerificationRequestView | null> {
    return this.call('ledger_getVerificationRequest', [requestId]);
  }

  /** The response once the request is final or expired; null while it is pending (or unknown). */
  getVerificationResponse(requestId: string): Promise<VerificationResponse | null> {
    return this.call('ledger_getVerificationResponse', [requestId]);
  }

  /** Sends the subject's signed presentation (presentForVerification) towards the request's committee. */
  submitPresentation(presentation: PresentationJson): Promise<SubmittedPresentation> {
    return this.call('ledger_submitPresentation', [presentation]);
  }
}
