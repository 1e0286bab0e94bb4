import type { Test } from 'tap';
import { Registry } from 'prom-client';
import { createLogger } from '../../../node/logging.js';
import { HeadSignal } from '../../../node/plugins/block-stream.js';
import { PluginHost } from '../../../node/plugins/host.js';
import { openDatabase, type Database } from '../../../node/state/db.js';
import { createRelay } from '../../../plugins/relay/index.js';
import { CHAIN, setup } from '../../rpc/ledger/harness.js';
import { TestAgent, TestResolver } from './didcomm-client.js';
import { testSecrets } from './store/contract/backend.js';

/** The relay through the real plugin host, on a real ChainStore and HTTP port; clients use didcomm-node. */
export async function startRelay(t: Test, opts: { config?: Record<string, unknown>; db?: Database; node?: Awaited<ReturnType<typeof setup>> } = {}) {
  const node = opts.node ?? (await setup(t, { blocks: true }));
  const db = opts.db ?? (await openDatabase('memory'));
  if (!opts.db) t.teardown(() => db.close());
  const metrics = new Registry();
  // one service-key secret for every start, as a node's: a relay started again on `db` opens what it sealed
  const serviceKeySecret = await testSecrets.serviceKeySecret();
  const host = new PluginHost({ chainId: CHAIN, network: 'testnet', store: node.store, db, mempool: node.mempool, head: new HeadSignal(), metrics, log: createLogger({ level: 'silent' }), serviceKeySecret });
  t.teardown(() => host.stop());
  const [state] = await host.start([createRelay()], { relay: { enabled: true, host: '127.0.0.1', port: 0, cryptoThreads: 0, ...opts.config } });
  if (state?.state !== 'running') throw new Error(`relay did not start: ${JSON.stringify(state)}`);
  const url = state.url;
  const invite = (await (await fetch(`${url}/invite`)).json()) as { from: string; services: Array<{ serviceEndpoint: { uri: string } }> };
  const resolver = new TestResolver();
  const agent = (o?: ConstructorParameters<typeof TestAgent>[1]) => new TestAgent(resolver, o);
  return { node, url, didcomm: `${url}/didcomm`, mediator: invite.from, invite, resolver, agent, metrics, host, db };
}

export const MEDIATION = 'https://didcomm.org/coordinate-mediation/2.0';
export const PICKUP = 'https://didcomm.org/messagepickup/3.0';

/** mediate-request then keylist-update of the agent's own DID; returns the grant */
export async function mediate(relay: Awaited<ReturnType<typeof startRelay>>, agent: TestAgent, keys: string[] = [agent.did]) {
  const grant = await agent.send(relay.didcomm, relay.mediator, `${MEDIATION}/mediate-request`, {});
  const update = await agent.send(relay.didcomm, relay.mediator, `${MEDIATION}/keylist-update`, { updates: keys.map((k) => ({ recipient_did: k, action: 'add' })) });
  return { grant, update };
}
