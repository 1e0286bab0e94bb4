import t from 'tap';
import { StateOverlay } from '../../node/execution/overlay.js';
import { MAX_TASKS_PER_HEIGHT, SCHEDULED_KINDS, scheduleTask, takeTasks, taskCount, tasksAt } from '../../node/execution/scheduled.js';

const empty = { get: async () => undefined };

t.test('tasks come back in order at their height, once', async (t) => {
  const s = new StateOverlay(empty);
  await scheduleTask(s, 10, { kind: SCHEDULED_KINDS.credentialDeadline, id: Uint8Array.of(1, 2) });
  await scheduleTask(s, 11, { kind: SCHEDULED_KINDS.recoveryDue, id: Uint8Array.of(3) });
  await scheduleTask(s, 10, { kind: SCHEDULED_KINDS.recoveryDue, id: Uint8Array.of(4, 5, 6) });
  t.same(await takeTasks(s, 9), []);
  const due = await takeTasks(s, 10);
  t.same(
    due.map((d) => [d.kind, Array.from(d.id)]),
    [
      [SCHEDULED_KINDS.credentialDeadline, [1, 2]],
      [SCHEDULED_KINDS.recoveryDue, [4, 5, 6]],
    ],
  );
  t.same(await takeTasks(s, 10), [], 'taking deletes the entry');
  t.equal((await takeTasks(s, 11)).length, 1);
  t.equal(s.changes().filter((c) => c.value !== null).length, 0, 'nothing is left in state');
});

t.test('an entry with an unknown kind is refused', async (t) => {
  const s = new StateOverlay(empty);
  await scheduleTask(s, 1, { kind: SCHEDULED_KINDS.recoveryDue, id: Uint8Array.of(7) });
  const [change] = s.changes();
  const bytes = Uint8Array.from(change!.value!);
  bytes[2] = 99;
  s.put(change!.key, bytes);
  await t.rejects(takeTasks(s, 1), /unknown scheduled task kind 99/);
});

t.test('a height holds at most MAX_TASKS_PER_HEIGHT tasks', async (t) => {
  const s = new StateOverlay(empty);
  t.equal(await taskCount(s, 5), 0);
  for (let i = 0; i < MAX_TASKS_PER_HEIGHT; i++) await scheduleTask(s, 5, { kind: SCHEDULED_KINDS.recoveryDue, id: Uint8Array.of(i & 0xff) });
  t.equal(await taskCount(s, 5), MAX_TASKS_PER_HEIGHT);
  await t.rejects(scheduleTask(s, 5, { kind: SCHEDULED_KINDS.recoveryDue, id: Uint8Array.of(1) }), { code: 'SCHEDULE_FULL' });
  t.equal((await takeTasks(s, 5)).length, MAX_TASKS_PER_HEIGHT);
});

t.test('tasksAt reads a height\'s tasks and leaves them in place', async (t) => {
  const s = new StateOverlay(empty);
  await scheduleTask(s, 3, { kind: SCHEDULED_KINDS.credentialDeadline, id: Uint8Array.of(9) });
  t.same((await tasksAt(s, 3)).map((d) => Array.from(d.id)), [[9]]);
  t.same((await tasksAt(s, 3)).length, 1, 'still there');
  t.same(await tasksAt(s, 4), []);
});
