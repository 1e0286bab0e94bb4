// The package ships no types; these cover the calls we make (node/crypto/bbs.ts wraps them).
declare module '@digitalbazaar/bbs-signatures' {
  export const CIPHERSUITES: { BLS12381_SHA256: string; BLS12381_SHAKE256: string };
  export function verifyProof(args: {
    publicKey: Uint8Array;
    proof: Uint8Array;
    header: Uint8Array;
    presentationHeader: Uint8Array;
    disclosedMessages: Uint8Array[];
    disclosedMessageIndexes: number[];
    ciphersuite: string;
  }): Promise<boolean>;
  export function generateKeyPair(args: { ciphersuite: string; seed?: Uint8Array }): Promise<{ secretKey: Uint8Array; publicKey: Uint8Array }>;
  export function sign(args: { secretKey: Uint8Array; publicKey: Uint8Array; header: Uint8Array; messages: Uint8Array[]; ciphersuite: string }): Promise<Uint8Array>;
  export function deriveProof(args: {
    publicKey: Uint8Array;
    signature: Uint8Array;
    header: Uint8Array;
    messages: Uint8Array[];
    presentationHeader: Uint8Array;
    disclosedMessageIndexes: number[];
    ciphersuite: string;
  }): Promise<Uint8Array>;
}
