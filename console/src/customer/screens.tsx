// A customer's screens by route (`#/customer/<screen>`), all read through its own API key.
import { publicApi } from '../api/session.ts';
import { UsageView } from '../ui/usage.tsx';
import { Overview } from './overview.tsx';
import { Requests } from './requests.tsx';
import { Videos } from './videos.tsx';

export const CUSTOMER_NAV: Array<[string, string]> = [
  ['overview', 'Wallet and key'],
  ['usage', 'Usage'],
  ['requests', 'Requests'],
  ['videos', 'Videos'],
];

export function CustomerScreens({ route }: { route: string[] }) {
  const [screen = 'overview'] = route;
  switch (screen) {
    case 'overview':
      return <Overview />;
    case 'usage':
      return (
        <>
          <h1>Usage</h1>
          <UsageView title="Spend per day and model" load={(start, end) => publicApi.get('/v1/usage', { query: { start_date: start, end_date: end } })} />
        </>
      );
    case 'requests':
      return <Requests />;
    case 'videos':
      return <Videos />;
    default:
      return <p role="alert">No such screen: {screen}</p>;
  }
}
