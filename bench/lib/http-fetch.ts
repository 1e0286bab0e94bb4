import { Agent, request, type OutgoingHttpHeaders } from 'node:http';

/**
 * The part of fetch the RPC client uses (POST a string, read status, headers and text), over
 * node:http with keep-alive sockets. A load generator on the machine of the nodes it measures
 * takes its CPU from them: at 500 tx/s Node's fetch cost this process 0.42 of a core, 0.84 ms a
 * request; this costs about half as much (docs/performance.md).
 */
export function keepAliveFetch(maxSocketsPerNode: number): typeof fetch {
  // idle sockets close after 4 s, before the node's 5 s keep-alive timeout closes them under a request
  const agent = new Agent({ keepAlive: true, maxSockets: maxSocketsPerNode, timeout: 4000 });
  const post = (url: string, init: RequestInit | undefined, attempt = 1): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const req = request(url, { method: init?.method ?? 'GET', headers: init?.headers as OutgoingHttpHeaders, agent, signal: init?.signal ?? undefined }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          const text = Buffer.concat(chunks).toString('utf8');
          const header = (name: string) => {
            const v = res.headers[name.toLowerCase()];
            return v === undefined ? null : Array.isArray(v) ? v.join(', ') : v;
          };
          resolve({ status, ok: status >= 200 && status < 300, headers: { get: header }, text: async () => text } as unknown as Response);
        });
      });
      req.on('error', (err: NodeJS.ErrnoException) => {
        // The node closed a kept-alive socket as this request went out on it ("socket hang up"):
        // the request did not reach it, so it goes again on a fresh socket (Node's documented
        // pattern). Should it have arrived after all, the node answers ALREADY_KNOWN.
        if (attempt < 3 && err.code === 'ECONNRESET') post(url, init, attempt + 1).then(resolve, reject);
        else reject(err);
      });
      req.end(typeof init?.body === 'string' ? init.body : undefined);
    });
  return ((input: string | URL | Request, init?: RequestInit) => post(String(input), init)) as typeof fetch;
}
