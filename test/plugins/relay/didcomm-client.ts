/**
 * The relay tests' DIDComm agent lives in bench/lib/relay/didcomm-agent.ts, shared with
 * bench/relay; these names keep the tests' imports as they were.
 */
export { DidcommAgent as TestAgent, AgentResolver as TestResolver, type Reply } from '../../../bench/lib/relay/didcomm-agent.js';
