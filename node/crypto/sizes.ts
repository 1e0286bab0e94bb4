/**
 * Byte lengths of the BBS and ECVRF formats, apart from their implementations: the payload codecs
 * and record layouts check lengths, and importing the verifiers for a constant would load the BBS
 * library (and its curve code) into every light client.
 */

const BBS_G1_BYTES = 48;
export const BBS_SCALAR_BYTES = 32;
/** Abar, Bbar, D (G1) + e^, r1^, r3^, challenge (scalars); then one scalar per undisclosed message */
export const BBS_FIXED_PROOF_BYTES = 3 * BBS_G1_BYTES + 4 * BBS_SCALAR_BYTES;
export const BBS_PUBLIC_KEY_BYTES = 96;
export const MAX_BBS_MESSAGES = 1024;
/** the longest proof: every one of MAX_BBS_MESSAGES messages hidden */
export const MAX_BBS_PROOF_BYTES = BBS_FIXED_PROOF_BYTES + MAX_BBS_MESSAGES * BBS_SCALAR_BYTES;

/** pi = Gamma (32) ‖ c (16) ‖ s (32) (RFC 9381, ECVRF-EDWARDS25519) */
export const ECVRF_PROOF_LENGTH = 80;
/** beta: SHA-512 */
export const ECVRF_OUTPUT_LENGTH = 64;
