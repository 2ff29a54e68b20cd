// Spend per day and model as stacked bars, drawn as SVG by hand (no chart library): one bar per
// UTC day, one colour per model, each segment titled with its exact amount. The numbers are also
// in the table beside it, for screen readers and for copying. A range wider than the screen
// scrolls sideways and opens at its latest days (today's bar, not the first of the month).
import { useLayoutEffect, useRef } from 'preact/hooks';
import { daysBetween, formatMicros, toMicros } from './format.ts';

export interface SpendRow {
  date: string;
  model: string;
  spend: string;
}

const HEIGHT = 160;
const BAR = 18;
const GAP = 6;
const PALETTE_SIZE = 8;

export function SpendChart({ rows, start, end, currency }: { rows: SpendRow[]; start: string; end: string; currency: string }) {
  const days = daysBetween(start, end);
  const models = [...new Set(rows.map((r) => r.model))].sort();
  const byDay = new Map<string, Map<string, bigint>>();
  for (const row of rows) {
    const day = byDay.get(row.date) ?? new Map<string, bigint>();
    day.set(row.model, (day.get(row.model) ?? 0n) + toMicros(row.spend));
    byDay.set(row.date, day);
  }
  const totals = days.map((d) => [...(byDay.get(d)?.values() ?? [])].reduce((a, b) => a + b, 0n));
  const max = totals.reduce((a, b) => (b > a ? b : a), 0n);
  const scale = (micros: bigint): number => (max === 0n ? 0 : Number((micros * 10_000n) / max) / 10_000) * HEIGHT;
  const width = days.length * (BAR + GAP) + GAP;
  const labelEvery = Math.max(1, Math.ceil(days.length / 8));
  const scroller = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const box = scroller.current;
    if (box) box.scrollLeft = box.scrollWidth; // the latest day in view; earlier ones a scroll away
  }, [start, end]);
  const summary = `Spend per day from ${start} to ${end} (UTC): highest day ${formatMicros(max)} ${currency}, ${models.length} model${models.length === 1 ? '' : 's'}.`;
  return (
    <figure class="chart">
      <div class="chart-scroll" ref={scroller}>
        <svg viewBox={`0 0 ${width} ${HEIGHT + 34}`} width={width} height={HEIGHT + 34} role="img" aria-label={summary}>
          <line x1="0" x2={width} y1={HEIGHT + 0.5} y2={HEIGHT + 0.5} class="axis" />
          {days.map((day, i) => {
            let y = HEIGHT;
            const x = GAP + i * (BAR + GAP);
            return (
              <g key={day}>
                <title>{`${day}: ${formatMicros(totals[i]!)} ${currency}`}</title>
                {models.map((model, m) => {
                  const micros = byDay.get(day)?.get(model);
                  if (!micros) return null;
                  const h = Math.max(scale(micros), 1);
                  y -= h;
                  return (
                    <rect key={model} x={x} y={y} width={BAR} height={h} class={`series-${m % PALETTE_SIZE}`}>
                      <title>{`${day} · ${model}: ${formatMicros(micros)} ${currency}`}</title>
                    </rect>
                  );
                })}
                {i % labelEvery === 0 ? (
                  <text x={x + BAR / 2} y={HEIGHT + 14} class="tick" text-anchor="middle">
                    {day.slice(5)}
                  </text>
                ) : null}
              </g>
            );
          })}
          <text x={GAP} y={HEIGHT + 30} class="tick">{`max ${formatMicros(max)} ${currency} per day`}</text>
        </svg>
      </div>
      <figcaption>
        <ul class="legend" aria-label="Models">
          {models.map((model, m) => (
            <li key={model}>
              <svg width="10" height="10" aria-hidden="true">
                <rect width="10" height="10" class={`series-${m % PALETTE_SIZE}`} />
              </svg>
              {model}
            </li>
          ))}
        </ul>
      </figcaption>
    </figure>
  );
}
