import { CIPHERSUITES, deriveProof, generateKeyPair, sign } from '@digitalbazaar/bbs-signatures';
import type { BbsProofInput } from '../../node/crypto/bbs.js';

/**
 * A real BBS proof over a credential of `messageCount` messages with the first `disclosedCount`
 * disclosed, signed and derived with the reference library. Its verification costs what a real
 * proof of that size costs (an invalid proof of random bytes is refused long before).
 */
export async function makeBbsProof(messageCount: number, disclosedCount: number): Promise<BbsProofInput> {
  const ciphersuite = CIPHERSUITES.BLS12381_SHA256;
  const { secretKey, publicKey } = await generateKeyPair({ ciphersuite });
  const messages = Array.from({ length: messageCount }, (_, i) => new TextEncoder().encode(`claim ${i}`));
  const header = new TextEncoder().encode('ledger test');
  const presentationHeader = new TextEncoder().encode('nonce');
  const signature = await sign({ secretKey, publicKey, header, messages, ciphersuite });
  const indexes = Array.from({ length: disclosedCount }, (_, i) => i);
  const proof = await deriveProof({ publicKey, signature, header, messages, presentationHeader, disclosedMessageIndexes: indexes, ciphersuite });
  return { proof, publicKey, header, presentationHeader, disclosed: indexes.map((index) => ({ index, message: messages[index]! })), totalMessageCount: messageCount };
}
