// tests/browser/bench-viewer.mjs - measured figures of the timeline viewer
// (`make viewer-bench`): for generated streams of 1,000, 10,000 and 100,000
// events, the page size, qsched's CPU time to write it, the time Chromium
// takes from navigation to the first complete drawing (median of 3 fresh
// page loads), and frame intervals while the view scrolls (whole trace, and
// zoomed so events are ~30 px wide).  A benchmark, not a test: it asserts
// nothing and prints one line per size.  Usage: node bench-viewer.mjs ROOT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launch } from './cdp.mjs';

const root = path.resolve(process.argv[2] || '.');
const qsched = path.join(root, 'build/qsched');
const dir = path.join(root, 'build/browser');
fs.mkdirSync(dir, { recursive: true });
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const pan = (step) => `new Promise(res => { const v = qschedViewer, ts = []; let n = 0;
  function f(t) { ts.push(t); v.panBy(${step}); if (++n < 150) requestAnimationFrame(f); else {
    const d = ts.slice(1).map((x, i) => x - ts[i]).sort((a, b) => a - b);
    res({ avg: d.reduce((a, b) => a + b, 0) / d.length, p95: d[Math.floor(d.length * 0.95)], max: d[d.length - 1] }); } }
  requestAnimationFrame(f); })`;
const fmt = (f) => `avg ${f.avg.toFixed(1)} ms, p95 ${f.p95.toFixed(1)} ms, max ${f.max.toFixed(1)} ms`;

const b = await launch();
try {
  for (const size of [1000, 10000, 100000]) {
    const ev = path.join(dir, `bench-${size}.events`), html = path.join(dir, `bench-${size}.html`);
    fs.writeFileSync(ev, spawnSync(qsched, ['gen', '--seed', '1', '--size', String(size)], { maxBuffer: 1 << 30 }).stdout);
    const r = spawnSync(qsched, ['--format', 'html', ev], { maxBuffer: 1 << 30 });
    const child = spawnSync('sh', ['-c', `command -v /usr/bin/time >/dev/null && /usr/bin/time -f %U+%S ${qsched} --format html ${ev} >/dev/null`], { encoding: 'utf8' });
    fs.writeFileSync(html, r.stdout);
    const loads = [];
    let frames, framesZoom, heap;
    for (let k = 0; k < 3; k++) {
      const p = await b.newPage(1400, 1000);
      const t1 = Date.now();
      await p.goto('file://' + html, 120000);
      await p.waitFor('window.qschedViewer && qschedViewer.ready', 120000);
      loads.push(Date.now() - t1);
      if (k === 2) {
        frames = await p.eval(pan(7));
        await p.eval('qschedViewer.zoom(30 / qschedViewer.ppe)');
        framesZoom = await p.eval(pan(25));
        await p.send('Performance.enable');
        const m = await p.send('Performance.getMetrics');
        heap = (m.metrics.find((x) => x.name === 'JSHeapUsedSize') || { value: 0 }).value;
      }
      await p.close();
    }
    console.log(`viewer-bench ${size} events: page ${(r.stdout.length / 1e6).toFixed(2)} MB, ` +
      `written in ${(child.stderr || '').trim() || '?'} s CPU; ` +
      `ready after ${median(loads)} ms (median of ${loads.join(', ')}); JS heap ${(heap / 1e6).toFixed(0)} MB; ` +
      `scrolling whole trace: ${fmt(frames)}; zoomed: ${fmt(framesZoom)}`);
  }
} finally {
  await b.close();
}
