import { StreamState, YamuxStream } from '@chainsafe/libp2p-yamux/stream';

/**
 * yamux 8 answers every data frame it reads with a window update frame, so each small message
 * (a vote, a gossiped transaction) costs its receiver an encrypted frame and a socket write back,
 * and its sender a read and a decryption: about 8 % of a validator's CPU under load. hashicorp's
 * and go-yamux's rule is to send the update only once half the receive window is used; the
 * sender then still holds half a window and never stalls. Installed once, for every stream.
 */
export function windowUpdateDue(s: { state: StreamState; recvWindow: number; recvWindowCapacity: number }): boolean {
  return s.state !== StreamState.Established || s.recvWindowCapacity * 2 <= s.recvWindow;
}

type Patched = { sendWindowUpdate(): void; ledgerBatchedWindowUpdates?: true };

export function batchYamuxWindowUpdates(): void {
  const proto = YamuxStream.prototype as unknown as Patched;
  if (proto.ledgerBatchedWindowUpdates) return;
  const send = proto.sendWindowUpdate;
  proto.sendWindowUpdate = function (this: Patched & Parameters<typeof windowUpdateDue>[0]) {
    if (windowUpdateDue(this)) send.call(this);
  };
  proto.ledgerBatchedWindowUpdates = true;
}
