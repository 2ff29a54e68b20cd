import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { ROOT_DIR } from '../../src/config.ts';

/**
 * A port for a child process to listen on, free when asked. Taken below Linux's ephemeral range
 * (32768 and up), where the kernel never picks source ports for outgoing connections or ports for
 * `listen(0)`: between this check and the child's bind, nothing else in the suite can take it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts a command in the repository and waits until it accepts connections on `port`. */
export async function startListening(command: string, args: string[], port: number, env: NodeJS.ProcessEnv = {}, timeoutMs = 60_000): Promise<RunningProcess> {
  const child = spawn(command, args, { cwd: ROOT_DIR, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout?.on('data', (d) => (output += d.toString()));
  child.stderr?.on('data', (d) => (output += d.toString()));
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      /* already gone */
    }
    await Promise.race([exited, new Promise((r) => setTimeout(r, 3000))]);
  };
  try {
    await waitForPort(port, timeoutMs, () => child.exitCode !== null);
  } catch (error) {
    await stop();
    throw new Error(`${command} ${(error as Error).message}:\n${output}`);
  }
  return { child, output: () => output, stop };
}

export async function waitForPort(port: number, timeoutMs = 60_000, gaveUp: () => boolean = () => false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gaveUp()) throw new Error('exited before listening');
    const open = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => (socket.end(), resolve(true)));
      socket.on('error', () => resolve(false));
    });
    if (open) return;
    if (Date.now() > deadline) throw new Error(`did not listen on ${port} in time`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/**
 * Waits until `url` answers 200. An open port is not enough for the gateway: its start-up check
 * that the port is free listens on it for a moment, and a connection made then is accepted and
 * closed, long before the gateway serves.
 */
export async function waitForHttp(url: string, timeoutMs = 60_000, gaveUp: () => boolean = () => false): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (gaveUp()) throw new Error('exited before serving');
    const status = await fetch(url).then(
      (response) => (void response.body?.cancel(), response.status),
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline) throw new Error(`${url} did not answer 200 in time (last: ${status || 'no answer'})`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export const prismBin = `${ROOT_DIR}/node_modules/.bin/prism`;
