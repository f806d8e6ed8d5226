/** A key's webhook delivery log (GET /webhooks/deliveries), page by page, as the contract's body. */
import type { TDelivery, TDeliveryList } from '../../../shared/deliveries.js';
import type { OutboxRecord, Store } from '../store/types.js';

function deliveryView(d: OutboxRecord & { attempt_log: TDelivery['attempt_log'] }): TDelivery {
  return {
    webhook_id: d.id,
    event_type: d.event_type as TDelivery['event_type'],
    subject_id: d.subject_id,
    url: d.url,
    status: d.status,
    attempts: d.attempts,
    // When the next attempt is due means something only while one is.
    next_attempt_at: d.status === 'pending' ? d.next_attempt_at : null,
    created_at: d.created_at,
    delivered_at: d.delivered_at,
    attempt_log: d.attempt_log,
  };
}

export async function listDeliveries(
  keyId: string,
  page: { limit: number; offset: number },
  store: Pick<Store, 'outbox'>,
): Promise<TDeliveryList> {
  const { items, total } = await store.outbox.list(keyId, page);
  return { deliveries: items.map(deliveryView), total, ...page };
}
