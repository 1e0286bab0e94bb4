import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * An OpenID4VCI wallet outside the issuer's process: wallet-process.ts, the library's own client
 * run by `node` as a child. Its copy of the library, and that library's process-wide switch for
 * plain-http URLs, are its own, so an issuer checked by these tests runs with the switch off as a
 * real deployment does, whether it is a node process or the test's own process.
 */

const LOADER = fileURLToPath(new URL('../../../node_modules/@isaacs/ts-node-temp-fork-for-pr-2009/import.mjs', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./wallet-process.ts', import.meta.url));

/** What the issuer refused: the library's message, and the HTTP status and OAuth error body when the issuer answered. */
export class WalletError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly body?: { error?: string; error_description?: string },
  ) {
    super(message);
  }
}

export interface ProofSpec {
  /** the signing key's Ed25519 seed */
  seed: Uint8Array;
  /** the key named by a DID URL `kid`; by its `jwk` when absent */
  didUrl?: string;
  nonce: string;
}

export interface OutsideWallet {
  /** the offer (an `openid-credential-offer://` link) and its issuer's metadata */
  resolve(link: string): Promise<{ offer: { credential_issuer: string; grants?: Record<string, Record<string, unknown>> }; credentialIssuer: string }>;
  token(txCode?: string): Promise<{ access_token: string; c_nonce?: string }>;
  credential(proof?: ProofSpec): Promise<{ credential?: unknown; credentials?: Array<{ credential: unknown }>; c_nonce?: string }>;
}

export async function startOutsideWallet(t: { teardown(fn: () => unknown): void }): Promise<OutsideWallet> {
  const child = spawn(process.execPath, ['--import', pathToFileURL(LOADER).href, SCRIPT], {
    // a plain node process: without the test runner's hooks (NODE_OPTIONS)
    env: { ...process.env, NODE_OPTIONS: '', TS_NODE_TRANSPILE_ONLY: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  t.teardown(async () => {
    child.stdin.end();
    await exited;
  });
  const answers = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let queue = Promise.resolve();
  const send = <T>(command: Record<string, unknown>): Promise<T> => {
    const run = queue.then(async () => {
      child.stdin.write(`${JSON.stringify(command)}\n`);
      const line = await answers.next();
      if (line.done) throw new Error(`the wallet process exited:\n${stderr}`);
      const answer = JSON.parse(line.value) as { result?: T; error?: { message: string; status?: number; body?: WalletError['body'] } };
      if (answer.error) throw new WalletError(answer.error.message, answer.error.status, answer.error.body);
      return answer.result as T;
    });
    queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  };
  return {
    resolve: (link) => send({ op: 'resolve', link }),
    token: (txCode) => send({ op: 'token', ...(txCode ? { txCode } : {}) }),
    credential: (proof) =>
      send({ op: 'credential', ...(proof ? { proof: { seed: Buffer.from(proof.seed).toString('hex'), signer: proof.didUrl ? { method: 'did', didUrl: proof.didUrl } : { method: 'jwk' }, nonce: proof.nonce } } : {}) }),
  };
}

/** The error a wallet call ended with (the test expects one). */
export async function refusedBy(call: Promise<unknown>): Promise<WalletError> {
  try {
    await call;
  } catch (err) {
    if (err instanceof WalletError) return err;
    throw err;
  }
  throw new Error('the issuer accepted it');
}
