// The operator's screens by route (`#/operator/<screen>/...`).
import { Catalogue } from './catalogue.tsx';
import { CustomerDetail } from './customer.tsx';
import { Customers } from './customers.tsx';
import { Holds } from './holds.tsx';
import { Reconciliation } from './reconciliation.tsx';
import { RequestLogs } from './request-logs.tsx';
import { Spend } from './spend.tsx';
import { VideoTasks } from './videos.tsx';

export const OPERATOR_NAV: Array<[string, string]> = [
  ['customers', 'Customers'],
  ['requests', 'Request logs'],
  ['holds', 'Holds'],
  ['videos', 'Video tasks'],
  ['reconciliation', 'Reconciliation'],
  ['catalogue', 'Catalogue'],
  ['spend', 'Spend'],
];

export function OperatorScreens({ route }: { route: string[] }) {
  const [screen = 'customers', id] = route;
  switch (screen) {
    case 'customers':
      return id ? <CustomerDetail id={id} /> : <Customers />;
    case 'requests':
      return <RequestLogs />;
    case 'holds':
      return <Holds />;
    case 'videos':
      return <VideoTasks />;
    case 'reconciliation':
      return <Reconciliation />;
    case 'catalogue':
      return <Catalogue />;
    case 'spend':
      return <Spend />;
    default:
      return <p role="alert">No such screen: {screen}</p>;
  }
}
