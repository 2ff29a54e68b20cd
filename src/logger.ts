import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured JSON logs. Secrets are redacted by path as a last line of defence; the code never
 * logs keys, credentials or prompts in the first place. Lines go to stdout together once per turn
 * of the event loop (stdoutLines) unless a destination is given (tests).
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'gateway' },
      redact: {
        paths: ['*.authorization', '*.Authorization', '*["x-api-key"]', '*.apiKey', '*.api_key', '*.key', '*.credential', '*.token'],
        censor: '[redacted]',
      },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    destination ?? (stdout ??= stdoutLines()),
  );
}

/** One for the process: every logger writing to stdout shares it (and its exit handler). */
let stdout: pino.DestinationStream | undefined;

/** What of process.stdout the lines use. */
interface Corkable {
  write(chunk: string): unknown;
  on(event: 'error', listener: (error: NodeJS.ErrnoException) => void): unknown;
  cork(): void;
  uncork(): void;
}

/**
 * Log lines to `stream` (stdout), written together once per turn of the event loop: the stream is
 * corked at a turn's first line and uncorked after it, so a busy turn's lines leave in one writev.
 * pino's own stdout destination (sonic-boom, asynchronous) appends each line to the string it has
 * not written yet and measures that string's byte length again: the string is copied whole at every
 * line while a write is out, which was 8 KB allocated per request at c=50. On Linux, stdout to a
 * file or a pipe is written synchronously, so an exit loses nothing but what is still corked, which
 * the exit handler writes. A closed pipe (EPIPE) ends the logging, as pino's destination does.
 */
export function stdoutLines(stream: Corkable = process.stdout): pino.DestinationStream {
  let corked = false;
  let broken = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    broken = true;
  });
  process.once('exit', () => {
    if (corked) uncork();
  });
  return {
    write(line: string) {
      if (broken) return;
      if (!corked) {
        corked = true;
        stream.cork();
        setImmediate(uncork);
      }
      stream.write(line);
    },
  };
}
