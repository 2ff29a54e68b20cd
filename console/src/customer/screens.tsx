// A customer's screens by route (`#/customer/<screen>`), all read through its own API key.
import { publicApi } from '../api/session.ts';
import { UsageView } from '../ui/usage.tsx';
import { AlertsSection } from '../ui/alerts.tsx';
import { ExportForm, exportQuery } from '../ui/export.tsx';
import { href } from '../ui/router.ts';
import { ReceiptScreen } from '../ui/receipt.tsx';
import { Overview } from './overview.tsx';
import { Prices } from './prices.tsx';
import { Requests } from './requests.tsx';
import { Videos } from './videos.tsx';

export const CUSTOMER_NAV: Array<[string, string]> = [
  ['overview', 'Wallet and key'],
  ['usage', 'Usage'],
  ['prices', 'Prices'],
  ['requests', 'Requests'],
  ['videos', 'Videos'],
  ['alerts', 'Alerts'],
];

export function CustomerScreens({ route }: { route: string[] }) {
  const [screen = 'overview', id] = route;
  switch (screen) {
    case 'overview':
      return <Overview />;
    case 'usage':
      return (
        <>
          <h1>Usage</h1>
          <UsageView title="Spend per day and model" load={(start, end) => publicApi.get('/v1/usage', { query: { start_date: start, end_date: end } })} />
          <ExportForm title="Export charges" download={(request) => publicApi.fetch(`/v1/usage/export?${exportQuery(request)}`)} />
        </>
      );
    case 'requests':
      return id ? (
        <ReceiptScreen
          id={id}
          load={(requestId) => publicApi.get('/v1/requests/{request_id}', { path: { request_id: requestId } })}
          crumbs={<a href={href('customer', 'requests')}>Requests</a>}
        />
      ) : (
        <Requests />
      );
    case 'prices':
      return <Prices />;
    case 'videos':
      return <Videos />;
    case 'alerts':
      return (
        <>
          <h1>Alerts</h1>
          <AlertsSection load={() => publicApi.get('/v1/alerts', {})} update={(change) => publicApi.patch('/v1/alerts', { body: change })} />
        </>
      );
    default:
      return <p role="alert">No such screen: {screen}</p>;
  }
}
