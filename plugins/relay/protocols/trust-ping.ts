import { body, reply, type Handler } from './types.js';

/** Trust Ping 2.0 (https://didcomm.org/trust-ping/2.0/): answers a ping unless told not to. */

export const TRUST_PING = 'https://didcomm.org/trust-ping/2.0';

export const trustPing: Record<string, Handler> = {
  ping: async (inbound) => {
    if (body(inbound).response_requested === false) return { status: 202 };
    return { status: 200, reply: reply(inbound, `${TRUST_PING}/ping-response`, {}) };
  },
};
