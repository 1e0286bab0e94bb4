// The context packages ship no types; these cover what the offline document loader reads.
declare module '@digitalbazaar/credentials-context' {
  export const contexts: Map<string, unknown>;
}

declare module 'ed25519-signature-2020-context' {
  const pkg: { contexts: Map<string, unknown>; CONTEXT_URL: string };
  export default pkg;
}

declare module 'vc-revocation-list-context' {
  const pkg: { contexts: Map<string, unknown>; constants: { VC_REVOCATION_LIST_CONTEXT_V1_URL: string } };
  export default pkg;
}
