import type { Logger } from '../../../node/logging.js';
import type { ChainView } from '../../../node/plugins/chain-view.js';
import type { RelayConfig } from '../config.js';
import type { Coordination } from '../coordination/types.js';
import type { RelayStore } from '../store/types.js';
import type { WebhookOutbox } from '../../common/webhooks/outbox.js';
import type { RelayEvents } from './events.js';
import type { GateService } from './gates.js';
import type { MediationService } from './mediations.js';
import type { SettingsService } from './settings.js';
import type { DeliveryService } from './delivery.js';
import type { ResolutionService } from './resolutions.js';
import type { MediatorIdentity } from '../wire/identity.js';

/** Everything the wire and the operator API share, built once by the plugin's composition root. */
export interface RelayServices {
  readonly config: RelayConfig;
  readonly network: string;
  readonly chain: ChainView;
  readonly store: RelayStore;
  readonly settings: SettingsService;
  readonly events: RelayEvents;
  readonly outbox: WebhookOutbox;
  readonly gates: GateService;
  readonly mediations: MediationService;
  readonly delivery: DeliveryService;
  readonly resolutions: ResolutionService;
  /** rate limits, the replay window and live fan-out, shared by the instances */
  readonly coordination: Coordination;
  readonly identity: MediatorIdentity;
  readonly log: Logger;
  now(): number;
}
