/**
 * The defaults of a validator's verification settings (config `verification.*`, docs/operators.md),
 * apart from the modules that use them so that the config schema can name them without importing
 * the answering service.
 */

/**
 * A standby member's wait: long enough for the first members' answers to commit on a healthy
 * network (about 0.3 s at low load), short enough that one member down costs a response little.
 */
export const STANDBY_DELAY_MS = 1500;

/** the shortest time between two answer transactions of one validator (answer-sender.ts) */
export const ANSWER_WINDOW_MS = 100;

/**
 * Past this many checks waiting or running, the node's RPC answers new verification requests and
 * presentations busy (reason `verification_backlog`): a check waits behind those before it, and
 * at about 8 ms of a core each on a shared machine, 32 is about a second.
 */
export const BACKLOG_BUSY = 32;
