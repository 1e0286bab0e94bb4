// The package ships no types; these cover the calls we make.
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
}
