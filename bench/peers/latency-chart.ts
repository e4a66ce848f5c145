// The cost curve as a hand-written SVG: query latency (p50) against corpus size, one line per engine, log-log.

/** One engine's measured points of one panel: corpus size -> milliseconds (absent where it failed). */
export interface ChartSeries {
  engine: string;
  points: { size: number; ms: number }[];
}

/** One panel of the chart (one query mode). */
export interface ChartPanel {
  title: string;
  series: ChartSeries[];
}

const COLOURS: Record<string, string> = { Mnemo: '#1b7f3b', 'Mnemo (PostgreSQL)': '#7c3aed', LanceDB: '#c2410c', Orama: '#2563eb' };
const FALLBACK = ['#0f766e', '#b91c1c', '#a16207'];
const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const sizeLabel = (size: number) => (size >= 1_000_000 ? `${size / 1_000_000}M` : size >= 1000 ? `${size / 1000}k` : String(size));

/**
 * Renders panels side by side, each with a log x axis (corpus size) and a log y axis (p50 milliseconds).
 *
 * @example
 * ```ts
 * writeFileSync('latency.svg', latencyChart([{ title: 'hybrid', series: [{ engine: 'Mnemo', points: [{ size: 10000, ms: 2 }] }] }], 'p50 latency'));
 * ```
 */
export function latencyChart(panels: readonly ChartPanel[], caption: string): string {
  const panelWidth = 320;
  const panelHeight = 260;
  const margin = { left: 60, right: 24, top: 40, bottom: 44 };
  const width = panels.length * panelWidth;
  const height = panelHeight + 70;
  const all = panels.flatMap((panel) => panel.series.flatMap((series) => series.points));
  const sizes = [...new Set(all.map((point) => point.size))].sort((a, b) => a - b);
  const values = all.map((point) => point.ms).filter((ms) => ms > 0);
  const low = Math.floor(Math.log10(Math.min(...values, 1)));
  const high = Math.ceil(Math.log10(Math.max(...values, 10)));
  const minSize = Math.log10(sizes[0] ?? 1);
  const maxSize = Math.log10(sizes.at(-1) ?? 10);
  const engines = [...new Set(panels.flatMap((panel) => panel.series.map((series) => series.engine)))];
  const colour = (engine: string) => COLOURS[engine] ?? FALLBACK[engines.indexOf(engine) % FALLBACK.length] ?? '#000';
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="#fff"/>`,
    `<text x="${width / 2}" y="16" text-anchor="middle" font-size="13" font-weight="bold">${escape(caption)}</text>`,
  ];
  panels.forEach((panel, index) => {
    const x0 = index * panelWidth + margin.left;
    const plotWidth = panelWidth - margin.left - margin.right;
    const plotHeight = panelHeight - margin.top - margin.bottom + 20;
    const y0 = margin.top;
    const x = (size: number) => x0 + (maxSize === minSize ? plotWidth / 2 : ((Math.log10(size) - minSize) / (maxSize - minSize)) * plotWidth);
    const y = (ms: number) => y0 + plotHeight - ((Math.log10(Math.max(ms, 10 ** low)) - low) / Math.max(1, high - low)) * plotHeight;
    out.push(`<text x="${x0 + plotWidth / 2}" y="${y0 - 8}" text-anchor="middle" font-weight="bold">${escape(panel.title)}</text>`);
    out.push(`<rect x="${x0}" y="${y0}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#999"/>`);
    for (let decade = low; decade <= high; decade++) {
      const yy = y(10 ** decade);
      out.push(`<line x1="${x0}" y1="${yy}" x2="${x0 + plotWidth}" y2="${yy}" stroke="#eee"/>`);
      const label = decade >= 3 ? `${10 ** (decade - 3)} s` : decade >= 0 ? `${10 ** decade} ms` : `${(10 ** decade).toFixed(-decade)} ms`;
      out.push(`<text x="${x0 - 4}" y="${yy + 4}" text-anchor="end">${label}</text>`);
    }
    for (const size of sizes) {
      out.push(`<line x1="${x(size)}" y1="${y0 + plotHeight}" x2="${x(size)}" y2="${y0 + plotHeight + 4}" stroke="#999"/>`);
      out.push(`<text x="${x(size)}" y="${y0 + plotHeight + 16}" text-anchor="middle">${sizeLabel(size)}</text>`);
    }
    out.push(`<text x="${x0 + plotWidth / 2}" y="${y0 + plotHeight + 32}" text-anchor="middle">chunks</text>`);
    for (const series of panel.series) {
      const points = [...series.points].sort((a, b) => a.size - b.size);
      if (points.length === 0) continue;
      out.push(`<polyline fill="none" stroke="${colour(series.engine)}" stroke-width="2" points="${points.map((point) => `${x(point.size).toFixed(1)},${y(point.ms).toFixed(1)}`).join(' ')}"/>`);
      for (const point of points) {
        out.push(`<circle cx="${x(point.size).toFixed(1)}" cy="${y(point.ms).toFixed(1)}" r="3" fill="${colour(series.engine)}"><title>${escape(`${series.engine}, ${sizeLabel(point.size)}: ${point.ms.toFixed(2)} ms`)}</title></circle>`);
      }
    }
  });
  // The legend on one line, each entry as wide as its name (about 6.5 px a character at 11 px).
  let lx = 20;
  for (const engine of engines) {
    const ly = height - 12;
    out.push(`<line x1="${lx}" y1="${ly - 4}" x2="${lx + 20}" y2="${ly - 4}" stroke="${colour(engine)}" stroke-width="3"/>`);
    out.push(`<text x="${lx + 26}" y="${ly}">${escape(engine)}</text>`);
    lx += 26 + Math.ceil(engine.length * 6.5) + 24;
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}
