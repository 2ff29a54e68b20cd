// Time windows whose answer is final (docs/money.md, "The export watermark"): the usage exports
// and the request-log lists serve a period only once no row can still be written into it. A
// period whose `to` is past the watermark is refused with 425 and a retry-after, never answered
// in part; without `to`, a read ends at the watermark, and says where. So the union of
// back-to-back windows (each `from` the previous answer's end) is every row, each once.
import type { Knex } from 'knex';
import { readWatermark } from '../../db/watermark.ts';
import { Failure } from '../failure.ts';
import { AccountError } from './errors.ts';

export interface FinalWindow {
  from: Date | undefined;
  /** Exclusive: the `to` asked for, or the watermark when none was. */
  to: Date;
  /** Every row dated before it was committed when the window was read. */
  watermark: Date;
}

/** The header that names the watermark on an answer (and on a 425). */
export const watermarkHeaders = (watermark: Date): Record<string, string> => ({ watermark: watermark.toISOString() });

export async function finalWindow(db: Knex, period: { from?: Date | undefined; to?: Date | undefined }): Promise<FinalWindow | Failure> {
  const watermark = await readWatermark(db);
  const end = period.to ?? period.from;
  const open = period.to ? period.to > watermark : period.from !== undefined && period.from >= watermark;
  if (open && end) {
    const wait = Math.max(1, Math.ceil((end.getTime() - watermark.getTime()) / 1000));
    const headers = { ...watermarkHeaders(watermark), 'retry-after': String(wait) };
    const message = period.to
      ? `Rows can still be written into this period: it ends after the watermark, ${watermark.toISOString()} (nothing dated before it can still commit). ` +
        `Ask again in ${wait} s, or leave out \`to\` to read up to the watermark.`
      : `Nothing after \`from\` is final yet: the watermark is ${watermark.toISOString()}. Ask again in ${wait} s.`;
    return new Failure(AccountError.PeriodNotFinal, message, { param: period.to ? 'to' : 'from', headers });
  }
  return { from: period.from, to: period.to ?? watermark, watermark };
}
