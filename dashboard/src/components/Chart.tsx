/**
 * A time series chart (uPlot): one line, and the minimum and maximum drawn as labelled points.
 * `points` are [instant, value] pairs, oldest first; null values leave a gap. The table under the
 * chart (visually hidden) gives screen readers the same figures.
 */
import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface ChartProps {
  title: string;
  label: string;
  points: [string, number | null][];
  color?: string;
  /** Draws larger values lower (a rank: 1 is the best). */
  invert?: boolean;
  height?: number;
}

/** Index of the smallest and largest values (the newest on ties), or -1 without values. */
function extremes(values: (number | null)[]): { min: number; max: number } {
  let min = -1;
  let max = -1;
  values.forEach((v, i) => {
    if (v === null) return;
    if (min === -1 || v <= values[min]!) min = i;
    if (max === -1 || v >= values[max]!) max = i;
  });
  return { min, max };
}

export function Chart({ title, label, points, color = '#2563eb', invert = false, height = 220 }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const xs = points.map(([at]) => Date.parse(at) / 1000);
  const ys = points.map(([, v]) => v);
  const { min, max } = extremes(ys);
  useEffect(() => {
    const el = box.current;
    if (!el || points.length === 0) return;
    const only = (i: number) => ys.map((v, j) => (j === i ? v : null));
    const marker = (name: string, fill: string): uPlot.Series => ({ label: name, stroke: fill, fill, paths: () => null, points: { show: true, size: 9, fill, stroke: fill } });
    const plot = new uPlot({
      width: Math.max(el.clientWidth, 320),
      height,
      scales: { y: { dir: invert ? -1 : 1 } },
      series: [{}, { label, stroke: color, width: 2, spanGaps: true }, marker('min', '#16a34a'), marker('max', '#dc2626')],
      axes: [{}, { size: 70 }],
    }, [xs, ys, only(min), only(max)], el);
    const resize = () => plot.setSize({ width: Math.max(el.clientWidth, 320), height });
    window.addEventListener('resize', resize);
    return () => {
      window.removeEventListener('resize', resize);
      plot.destroy();
    };
  }, [JSON.stringify(points), invert, height]);
  return (
    <figure class="chart" aria-label={title}>
      <figcaption>{title}</figcaption>
      {points.length === 0 ? <p class="muted">No data in this window.</p> : <div ref={box} data-testid={`chart-${label}`} />}
      {min >= 0 ? (
        <table class="sr-only">
          <caption>{title}: extremes</caption>
          <tbody>
            <tr><th scope="row">min</th><td>{ys[min]}</td><td>{points[min]![0]}</td></tr>
            <tr><th scope="row">max</th><td>{ys[max]}</td><td>{points[max]![0]}</td></tr>
          </tbody>
        </table>
      ) : null}
    </figure>
  );
}
