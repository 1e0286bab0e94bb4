import { encodeTransaction, MAX_TX_BYTES, signTransaction, type Transaction } from '../protocol/transaction.js';
import { MAX_BATCH_ANSWERS } from '../protocol/payload-codecs/verification.js';
import type { Payload, VerificationAnswerItem } from '../protocol/payloads.js';
import { ANSWER_WINDOW_MS } from './defaults.js';

/**
 * A validator's answers go out together: every transaction costs each validator a signature
 * check, gossip, admission and execution, whatever it holds, so the answers a member has ready
 * leave as one VerificationAnswerBatch (one answer alone, as a VerificationAnswer). At most one
 * transaction leaves per window; an answer ready while none left within the window leaves at once,
 * so a quiet chain waits for nothing, and a busy one sends a few large transactions instead of many
 * small ones.
 */

export interface AnswerSenderDeps {
  chainId: string;
  seed: Uint8Array;
  publicKey: Uint8Array;
  nextNonce(): Promise<bigint>;
  submit(tx: Transaction): Promise<void>;
  /** whether the request still takes answers: one that closed while its answer waited is left out */
  stillOpen(requestId: string): Promise<boolean>;
  windowMs?: number;
  /** called for each transaction submitted, with the number of answers in it */
  sent?: (answers: number) => void;
}

interface Waiting {
  answer: VerificationAnswerItem;
  /** true: in a transaction; false: its request closed first */
  settle(sent: boolean): void;
  fail(err: unknown): void;
}

export class AnswerSender {
  private waiting: Waiting[] = [];
  private lastSentMs = -Infinity;
  private timer: NodeJS.Timeout | undefined;
  /** transactions go out one flush at a time, so nonces follow each other */
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly d: AnswerSenderDeps) {}

  /** Resolves once the answer is in a submitted transaction (true), or left out because its request closed (false). */
  send(answer: VerificationAnswerItem): Promise<boolean> {
    return new Promise((settle, fail) => {
      this.waiting.push({ answer, settle, fail });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.timer) return;
    const wait = Math.max(0, this.lastSentMs + (this.d.windowMs ?? ANSWER_WINDOW_MS) - performance.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      // flush() settles or fails every answer it takes; the catch keeps the chain going
      this.flushing = this.flushing.then(() => this.flush()).catch(() => undefined);
    }, wait);
  }

  private async flush(): Promise<void> {
    const taken = this.waiting.splice(0);
    if (taken.length === 0) return;
    this.lastSentMs = performance.now();
    const open: Waiting[] = [];
    for (const w of taken) {
      try {
        if (await this.d.stillOpen(w.answer.requestId)) open.push(w);
        else w.settle(false);
      } catch (err) {
        w.fail(err);
      }
    }
    for (const group of packAnswers(open, (ws) => fitsOneTransaction(this.d.publicKey, ws.map((w) => w.answer)))) {
      try {
        const payload = answerPayload(group.map((w) => w.answer));
        await this.d.submit(signTransaction(this.d.chainId, { senderPubkey: this.d.publicKey, nonce: await this.d.nextNonce(), payload }, this.d.seed));
      } catch (err) {
        for (const w of group) w.fail(err);
        continue;
      }
      this.d.sent?.(group.length);
      for (const w of group) w.settle(true);
    }
  }
}

/** One answer as a VerificationAnswer, several as a VerificationAnswerBatch. */
export function answerPayload(answers: VerificationAnswerItem[]): Payload {
  return answers.length === 1 ? { kind: 'VerificationAnswer', ...answers[0]! } : { kind: 'VerificationAnswerBatch', answers };
}

/** The answers a payload carries, alone or in a batch; none for any other kind. */
export function answersIn(p: Payload): VerificationAnswerItem[] {
  if (p.kind === 'VerificationAnswer') return [p];
  return p.kind === 'VerificationAnswerBatch' ? p.answers : [];
}

const NO_SIGNATURE = new Uint8Array(64);

function fitsOneTransaction(senderPubkey: Uint8Array, answers: VerificationAnswerItem[]): boolean {
  if (answers.length > MAX_BATCH_ANSWERS) return false;
  return encodeTransaction({ senderPubkey, nonce: 0n, payload: answerPayload(answers), signature: NO_SIGNATURE }).length <= MAX_TX_BYTES;
}

/** Splits `items`, in order, into the fewest groups that each `fits`; an item that fits in no group goes alone. */
export function packAnswers<T>(items: readonly T[], fits: (group: T[]) => boolean): T[][] {
  const groups: T[][] = [];
  let group: T[] = [];
  for (const item of items) {
    if (group.length > 0 && !fits([...group, item])) {
      groups.push(group);
      group = [];
    }
    group.push(item);
  }
  if (group.length > 0) groups.push(group);
  return groups;
}
