/**
 * `ledger-node/client`, as the node's package has always exported it: the light client's default
 * entry and its credentials entry in one (the node has every dependency of both), and the
 * subject's presentations for verification requests, which need BBS.
 */
export * from './core.js';
export * from './credentials.js';
export * from './presentation.js';
