import t from 'tap';
import { dialable } from '../../node/cli/commands/follow.js';

const ID = '12D3KooWExample';

t.test('the followed node’s addresses are made dialable from here', async (t) => {
  t.same(dialable([`/ip4/0.0.0.0/tcp/30333/p2p/${ID}`], '10.0.0.2'), [`/ip4/10.0.0.2/tcp/30333/p2p/${ID}`], 'an unspecified host becomes the URL’s');
  t.same(
    dialable([`/ip4/127.0.0.1/tcp/30333/p2p/${ID}`, `/ip4/10.0.0.2/tcp/30333/p2p/${ID}`, `/ip4/172.17.0.1/tcp/30333/p2p/${ID}`], '10.0.0.2'),
    [`/ip4/10.0.0.2/tcp/30333/p2p/${ID}`, `/ip4/172.17.0.1/tcp/30333/p2p/${ID}`],
    'a remote node’s loopback is its URL host, once; its other interfaces stay',
  );
  t.same(dialable([`/ip4/127.0.0.1/tcp/4001/p2p/${ID}`], '127.0.0.1'), [`/ip4/127.0.0.1/tcp/4001/p2p/${ID}`], 'a local node keeps its loopback');
  t.same(dialable([`/ip6/::/tcp/4001/p2p/${ID}`], '[fd00::2]'), [`/ip6/fd00::2/tcp/4001/p2p/${ID}`], 'IPv6');
  t.same(dialable([`/ip4/0.0.0.0/tcp/4001/p2p/${ID}`], 'validator-1.internal'), [`/dns/validator-1.internal/tcp/4001/p2p/${ID}`], 'a host name');
  t.same(dialable(['/memory/x', 'garbage'], 'h'), [], 'what is not an IP or DNS address is left out');
});
