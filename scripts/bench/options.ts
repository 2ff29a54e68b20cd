// Command-line options of `npm run bench` and the sample counts they imply.
//
//   --quick                 fewer samples (results/quick.*, not committed)
//   --profile               V8 CPU profile of each gateway (--cpu-prof; directory printed at the end)
//   --only=a,b              some phases: latency, throughput, c200, stream, memory, video (results/partial.*)
//   --no-peer               without the peer
//   --db=pg|embedded|both   which database(s) the gateway runs on, one after the other (default both)
//   --api=messages|chat|both  which API(s) the load phases drive (default both)
//   --scale[=N]             also the scale phase on PostgreSQL (10 million request-log rows seeded,
//                           a million with --quick, or N); --only=scale runs it alone
import type { Api } from './load.ts';

export const PHASES = ['latency', 'throughput', 'c200', 'stream', 'memory', 'video', 'scale'] as const;
export type Phase = (typeof PHASES)[number];
export type DatabaseKind = 'postgres' | 'embedded';

export interface Plan {
  warmup: number;
  latencyRounds: number;
  latencyPerRound: number;
  throughputRounds: number;
  throughputMs: number;
  wideRounds: number;
  wideMs: number;
  streamRounds: number;
  streamsPerRound: number;
  stream100Rounds: number;
  openStreams: number;
  videoTasks: number;
  embeddedVideoTasks: number;
}

export interface Options {
  quick: boolean;
  profile: boolean;
  peer: boolean;
  /** The scale phase: request-log rows to seed (0: not run). */
  scaleRequests: number;
  only: Phase[] | undefined;
  databases: DatabaseKind[];
  apis: Api[];
  plan: Plan;
}

function choice<T extends string>(args: string[], flag: string, values: Record<string, T[]>, fallback: T[]): T[] {
  const raw = args.find((a) => a.startsWith(`${flag}=`))?.slice(flag.length + 1);
  if (raw === undefined) return fallback;
  const picked = values[raw];
  if (!picked) throw new Error(`${flag}= takes ${Object.keys(values).join(', ')}; got "${raw}"`);
  return picked;
}

export function parseOptions(argv: string[]): Options {
  const known = ['--quick', '--profile', '--no-peer', '--scale'];
  for (const arg of argv) {
    if (!known.includes(arg) && !/^--(only|db|api)=/.test(arg) && !/^--scale=\d+$/.test(arg)) throw new Error(`unknown option ${arg} (see scripts/bench/options.ts)`);
  }
  const quick = argv.includes('--quick');
  const onlyRaw = argv.find((a) => a.startsWith('--only='))?.slice('--only='.length).split(',');
  const unknownPhase = onlyRaw?.find((p) => !(PHASES as readonly string[]).includes(p));
  if (unknownPhase) throw new Error(`--only= takes ${PHASES.join(', ')}; got "${unknownPhase}"`);
  const only = onlyRaw as Phase[] | undefined;
  const runs = (phase: Phase) => !only || only.includes(phase);

  const plan: Plan = quick
    ? { warmup: 200, latencyRounds: 3, latencyPerRound: 200, throughputRounds: 2, throughputMs: 3000, wideRounds: 1, wideMs: 3000, streamRounds: 2, streamsPerRound: 3, stream100Rounds: 1, openStreams: 1000, videoTasks: 2000, embeddedVideoTasks: 1000 }
    : { warmup: 500, latencyRounds: 5, latencyPerRound: 500, throughputRounds: 3, throughputMs: 5000, wideRounds: 3, wideMs: 5000, streamRounds: 3, streamsPerRound: 8, stream100Rounds: 3, openStreams: 1000, videoTasks: 10_000, embeddedVideoTasks: 10_000 };
  if (!runs('latency')) Object.assign(plan, { warmup: 0, latencyRounds: 0 });
  if (!runs('throughput')) Object.assign(plan, { throughputRounds: 0 });
  if (!runs('c200')) Object.assign(plan, { wideRounds: 0 });
  if (!runs('stream')) Object.assign(plan, { streamRounds: 0, stream100Rounds: 0 });
  if (!runs('memory')) Object.assign(plan, { openStreams: 0 });
  if (!runs('video')) Object.assign(plan, { videoTasks: 0, embeddedVideoTasks: 0 });

  return {
    quick,
    profile: argv.includes('--profile'),
    scaleRequests: scaleRequests(argv, quick, only),
    peer: !argv.includes('--no-peer'),
    only,
    databases: choice<DatabaseKind>(argv, '--db', { pg: ['postgres'], postgres: ['postgres'], embedded: ['embedded'], both: ['postgres', 'embedded'] }, ['postgres', 'embedded']),
    apis: choice<Api>(argv, '--api', { messages: ['messages'], chat: ['chat'], both: ['messages', 'chat'] }, ['messages', 'chat']),
    plan,
  };
}

/** --scale=N, or 10 million (a million with --quick) for --scale or --only=scale; 0: no scale phase. */
function scaleRequests(argv: string[], quick: boolean, only: Phase[] | undefined): number {
  const given = argv.find((a) => a.startsWith('--scale='));
  if (given) return Number(given.slice('--scale='.length));
  return argv.includes('--scale') || only?.includes('scale') ? (quick ? 1_000_000 : 10_000_000) : 0;
}

/** Where a run's results go: only a full run of everything replaces the committed latest.*. */
export function resultName(options: Options): 'latest' | 'quick' | 'partial' {
  const everything = !options.only && options.peer && options.databases.length === 2 && options.apis.length === 2;
  if (!everything) return 'partial';
  return options.quick ? 'quick' : 'latest';
}
