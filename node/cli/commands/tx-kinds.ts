import type { PayloadKind } from '../../protocol/payloads.js';

/** The kinds `ledger tx` signs, apart from the command itself so that `ledger --help` lists them without loading it. */
export const KINDS = [
  'transfer',
  'stake',
  'unstake',
  'did-create',
  'did-deactivate',
  'validator-register',
  'validator-qualify',
  'set-recovery-policy',
  'did-recover',
  'credential-request',
  'credential-revoke',
] as const;
export type Kind = (typeof KINDS)[number];

/** Each kind's payload (as the node's JSON names it), what it does and an example, for the help texts. */
export const TX_KINDS: Record<Kind, { payload: PayloadKind; summary: string; example: string }> = {
  transfer: { payload: 'Transfer', summary: 'send tokens to an address', example: 'ledger tx transfer --key data/keys/dev.json --to 3JQmMsGbVaLaZTtzMmPd41x8mrVb --amount 1.5 --wait' },
  stake: { payload: 'Stake', summary: 'lock tokens as stake', example: 'ledger tx stake --key data/keys/validator.json --amount 10000' },
  unstake: { payload: 'Unstake', summary: 'release staked tokens', example: 'ledger tx unstake --key data/keys/validator.json --amount 100' },
  'did-create': { payload: 'DidCreate', summary: "create the key's DID", example: "ledger tx did-create --key alice.json --service '#pod,SolidPod,https://pod.example/alice'" },
  'did-deactivate': { payload: 'DidDeactivate', summary: 'deactivate a DID for good', example: 'ledger tx did-deactivate --key alice.json' },
  'validator-register': { payload: 'ValidatorRegister', summary: "register a validator's BLS vote key", example: 'ledger tx validator-register --key data/keys/validator.json --wait' },
  'validator-qualify': { payload: 'ValidatorQualify', summary: "name the validator's KYC credential", example: 'ledger tx validator-qualify --key data/keys/validator.json --credential <uuid> --wait' },
  'set-recovery-policy': { payload: 'SetRecoveryPolicy', summary: "name the guardians who may recover the DID", example: 'ledger tx set-recovery-policy --key alice.json --guardian <did> --guardian <did> --threshold 2 --delay-blocks 100' },
  'did-recover': { payload: 'DidRecover', summary: "move a DID to a new key with its guardians' signatures", example: 'ledger tx did-recover --key relayer.json --did <did> --new-public-key <hex> --signature <did>=<hex> --signature <did>=<hex>' },
  'credential-request': { payload: 'CredentialRequest', summary: 'ask the validators to attest a credential', example: 'ledger tx credential-request --key issuer.json --credential <uuid> --subject <did> --type KYCCredential --kyc-level 2 --hash <hex> --evidence <hex> --status-index 0 --wait' },
  'credential-revoke': { payload: 'CredentialRevoke', summary: 'revoke a registered credential for good', example: 'ledger tx credential-revoke --key issuer.json --credential <uuid> --wait' },
};
