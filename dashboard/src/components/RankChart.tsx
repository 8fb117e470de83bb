/**
 * A rank chart (uPlot): several series of positions over the same instants, 1 at the top (a rank:
 * smaller is better), a gap where a series has no value (the ASIN was absent from that read, or
 * held no slot of that kind). `instants` are ISO 8601 instants, oldest first; each series' values
 * are aligned with them. The hidden table under the chart gives screen readers each series' newest
 * value (— when its newest read has none) and its best and worst positions.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface RankSeries {
  label: string;
  color: string;
  /** Drawn dashed, with larger points (the sponsored slots beside the organic line). */
  dashed?: boolean;
  values: (number | null)[];
}

export interface RankChartProps {
  title: string;
  instants: string[];
  series: RankSeries[];
  height?: number;
  testId?: string;
}

/** Newest, best (smallest) and worst (largest) value of a series; null where it has none. */
function summary(values: (number | null)[]): { newest: number | null; best: number | null; worst: number | null } {
  const present = values.filter((v): v is number => v !== null);
  if (present.length === 0) return { newest: null, best: null, worst: null };
  return { newest: values.at(-1) ?? null, best: Math.min(...present), worst: Math.max(...present) };
}

export function RankChart({ title, instants, series, height = 300, testId = 'rank-chart' }: RankChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const drawn = instants.length > 0 && series.length > 0;
  useEffect(() => {
    const el = box.current;
    if (!el || !drawn) return;
    const xs = instants.map((at) => Date.parse(at) / 1000);
    const plot = new uPlot({
      width: Math.max(el.clientWidth, 320),
      height,
      // Position 1 at the top: the scale runs downwards.
      scales: { y: { dir: -1, range: (_u, _min, max) => [1, Math.max(2, Math.ceil((max ?? 1) * 1.05))] } },
      series: [{}, ...series.map((s): uPlot.Series => ({
        label: s.label,
        stroke: s.color,
        width: s.dashed ? 1.5 : 2,
        dash: s.dashed ? [6, 4] : undefined,
        spanGaps: false,
        points: { show: true, size: s.dashed ? 7 : 5, fill: s.color, stroke: s.color },
      }))],
      axes: [{}, { size: 50, values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? `#${v}` : '')) }],
      // After each draw, the positions at the plot's top and bottom edges (tests and tools read them).
      hooks: {
        draw: [(u) => {
          el.dataset.yTop = String(Math.round(u.posToVal(0, 'y')));
          el.dataset.yBottom = String(Math.round(u.posToVal(u.bbox.height / uPlot.pxRatio, 'y')));
        }],
      },
    }, [xs, ...series.map((s) => s.values)], el);
    const resize = () => plot.setSize({ width: Math.max(el.clientWidth, 320), height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [JSON.stringify(instants), JSON.stringify(series), height]);
  return (
    <figure class="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      {drawn ? <div ref={box} data-testid={testId} data-series={series.length} data-points={instants.length} /> : <p class="muted">No data in this window.</p>}
      {drawn ? (
        <table class="sr-only">
          <caption>{title}: newest, best and worst positions</caption>
          <thead><tr><th scope="col">Series</th><th scope="col">Newest</th><th scope="col">Best</th><th scope="col">Worst</th></tr></thead>
          <tbody>
            {series.map((s) => {
              const { newest, best, worst } = summary(s.values);
              return <tr key={s.label}><th scope="row">{s.label}</th><td>{newest ?? '—'}</td><td>{best ?? '—'}</td><td>{worst ?? '—'}</td></tr>;
            })}
          </tbody>
        </table>
      ) : null}
    </figure>
  );
}
