// The operator's screens by route (`#/operator/<screen>/...`).
import { adminApi } from '../api/session.ts';
import { ReceiptScreen } from '../ui/receipt.tsx';
import { href } from '../ui/router.ts';
import { Catalogue } from './catalogue.tsx';
import { CustomerDetail } from './customer.tsx';
import { Customers } from './customers.tsx';
import { Holds } from './holds.tsx';
import { RedeemCodes } from './redeem.tsx';
import { Reconciliation } from './reconciliation.tsx';
import { RequestLogs } from './request-logs.tsx';
import { Spend } from './spend.tsx';
import { VideoTasks } from './videos.tsx';
import { WebhookDeliveries } from './webhooks.tsx';

export const OPERATOR_NAV: Array<[string, string]> = [
  ['customers', 'Customers'],
  ['requests', 'Request logs'],
  ['holds', 'Holds'],
  ['redeem', 'Redeem codes'],
  ['videos', 'Video tasks'],
  ['reconciliation', 'Reconciliation'],
  ['catalogue', 'Catalogue'],
  ['spend', 'Spend'],
  ['webhooks', 'Webhooks'],
];

export function OperatorScreens({ route }: { route: string[] }) {
  const [screen = 'customers', id] = route;
  switch (screen) {
    case 'customers':
      return id ? <CustomerDetail id={id} /> : <Customers />;
    case 'requests':
      return id ? (
        <ReceiptScreen
          id={id}
          load={(requestId) => adminApi.get('/admin/v1/receipts/{request_id}', { path: { request_id: requestId } })}
          crumbs={<a href={href('operator', 'requests')}>Request logs</a>}
        />
      ) : (
        <RequestLogs />
      );
    case 'holds':
      return <Holds />;
    case 'redeem':
      return <RedeemCodes />;
    case 'videos':
      return <VideoTasks />;
    case 'reconciliation':
      return <Reconciliation />;
    case 'catalogue':
      return <Catalogue />;
    case 'spend':
      return <Spend />;
    case 'webhooks':
      return <WebhookDeliveries />;
    default:
      return <p role="alert">No such screen: {screen}</p>;
  }
}
