import t from 'tap';
import { StreamState, YamuxStream } from '@chainsafe/libp2p-yamux/stream';
import { batchYamuxWindowUpdates, windowUpdateDue } from '../../node/network/yamux-window.js';

const window = 256 * 1024;

t.test('an established stream sends a window update once half its receive window is used', async (t) => {
  const at = (capacity: number) => windowUpdateDue({ state: StreamState.Established, recvWindow: window, recvWindowCapacity: capacity });
  t.notOk(at(window - 100), 'one small frame read: no update');
  t.notOk(at(window / 2 + 1), 'just under half used: no update');
  t.ok(at(window / 2), 'half used: update');
  t.ok(at(0), 'all used: update');
});

t.test('a stream that is opening, closing or resuming always sends it (it carries flags or reopens the window)', async (t) => {
  for (const state of [StreamState.Init, StreamState.SYNSent, StreamState.SYNReceived, StreamState.Finished, StreamState.Paused]) {
    t.ok(windowUpdateDue({ state, recvWindow: window, recvWindowCapacity: window - 1 }), StreamState[state]);
  }
});

t.test('installed once on every yamux stream', async (t) => {
  const before = YamuxStream.prototype.sendWindowUpdate;
  batchYamuxWindowUpdates();
  const after = YamuxStream.prototype.sendWindowUpdate;
  batchYamuxWindowUpdates();
  t.not(after, before, 'replaced');
  t.equal(YamuxStream.prototype.sendWindowUpdate, after, 'a second call changes nothing');
  // the library's own method on a bare stream: only the fields it reads, and a frame sink
  const sent: Array<{ length: number }> = [];
  const stream: { sendWindowUpdate(): void; recvWindowCapacity: number } = Object.assign(Object.create(YamuxStream.prototype) as { sendWindowUpdate(): void }, {
    state: StreamState.Established,
    recvWindow: window,
    recvWindowCapacity: window - 500,
    getRTT: () => -1,
    sendFrame: (f: { length: number }) => sent.push(f),
  });
  stream.sendWindowUpdate();
  t.equal(sent.length, 0, 'no frame for 500 bytes read');
  stream.recvWindowCapacity = window / 2 - 1;
  stream.sendWindowUpdate();
  t.equal(sent.length, 1, 'one frame once half the window is used');
  t.equal(sent[0]!.length, window / 2 + 1, 'it gives back all that was used');
});
