import t from 'tap';
import { createMemoryCoordination } from '../../../../plugins/relay/coordination/memory.js';
import { coordinationContract } from './contract.js';

t.test('the in-process coordination', async (t) => {
  coordinationContract(t, async (t) => {
    const c = createMemoryCoordination({ now: Date.now, replayWindowMs: 60_000 });
    t.teardown(() => c.close());
    t.equal(c.backend, 'in-process');
    return c;
  });
});
