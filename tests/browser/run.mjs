// tests/browser/run.mjs - the timeline viewer and the playground, tested in
// a real browser (Debian's headless Chromium, driven over the DevTools
// protocol: tests/browser/cdp.mjs).
//
// Owns the checks of issue 18 item 4:
//   timeline  `qsched --format html` of tests/scenarios/demo.events opens
//             with no error and no network request; it shows a job lane
//             per transport and a lane per destination; clicking an event
//             (in the list and on a delivery bar in the timeline) shows its
//             explain lines and the state after it; the keyboard steps
//             forward and back; a 100,000-event trace opens and draws;
//   playground  `make playground` page: every lesson runs in the
//             WebAssembly core without error and gives the native trace;
//             stepping through the 11112211113311 lesson with the keyboard
//             shows the document's delivery sequence, the preemption with
//             its numbers and M2 at stack level 1; editing the stream
//             (discount 0 -> 50) updates trace and timeline to the
//             document's 11221111331111; a bad line shows FILE:LINE-style
//             error and the valid prefix.
// Values checked come from the document (the two sequences) or from the
// native build/qsched (the traces), never from the page itself.
// Screenshots are kept in build/browser/ (artefacts).  Prints ok/FAIL lines.
// Usage: node run.mjs ROOT
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launch } from './cdp.mjs';

const root = path.resolve(process.argv[2] || '.');
const qsched = path.join(root, 'build/qsched');
const art = path.join(root, 'build/browser');
fs.mkdirSync(art, { recursive: true });
let failed = 0;
function ok(name) { console.log(`ok browser/${name}`); }
function fail(name, why) { failed++; console.log(`FAIL browser/${name}: ${why}`); }
function check(name, cond, why) { if (cond) ok(name); else fail(name, why); }
function native(args, opts = {}) {
  const r = spawnSync(qsched, args, { cwd: root, maxBuffer: 1 << 30, ...opts });
  return { code: r.status, out: r.stdout.toString(), err: r.stderr.toString() };
}
function foreignRequests(p) {
  return p.requests.filter((u) => !/^(file:|data:|about:|blob:)/.test(u));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const browser = await launch();
try {
  /* ---------------- timeline: the demo ---------------- */
  {
    const html = path.join(art, 'demo.html');
    const r = native(['--format', 'html', 'tests/scenarios/demo.events']);
    fs.writeFileSync(html, r.out);
    const p = await browser.newPage(1400, 1000);
    await p.goto('file://' + html);
    await p.waitFor('window.qschedViewer && qschedViewer.ready', 30000);
    check('timeline/no-errors', p.errors.length === 0, p.errors.join('; '));
    check('timeline/no-network', foreignRequests(p).length === 0, foreignRequests(p).join(' '));
    const lanes = await p.eval(`[document.querySelectorAll('.qv-lane.qv-tlane').length,
                                 document.querySelectorAll('[data-qv=lanes] .qv-lane:not(.qv-tlane)').length]`);
    /* demo: transports smtp and relay; smtp has 14 one-recipient
     * destinations, relay one (down.example) */
    check('timeline/lanes', lanes[0] === 2 && lanes[1] === 15, `job lanes ${lanes[0]}, destination lanes ${lanes[1]}`);
    /* click event #12 in the list: the select where M2 preempts M1 */
    await p.eval(`document.querySelector('[data-qv=list]').scrollTop = 0`);
    await sleep(100);
    const rowBox = await p.eval(`(() => { const e = document.querySelector('.qv-row[data-i="11"]');
      const b = e.getBoundingClientRect(); return [b.left + 40, b.top + b.height / 2]; })()`);
    await p.click(rowBox[0], rowBox[1]);
    await sleep(100);
    const detail = await p.eval(`document.querySelector('[data-qv=detail]').innerText`);
    const want = native(['--explain', 'tests/scenarios/demo.events']).out.split('\n')
      .find((l) => l.startsWith('preempt smtp M1 by M2'));
    check('timeline/click-list-explain', detail.includes(want) && detail.includes('deliver D5 M2 smtp:b1.example 1'),
          'detail of event 12 lacks "' + want + '"');
    const st = await p.eval('qschedViewer.state()');
    const cur = st[0].jobs.find((j) => j.current);
    check('timeline/click-list-state', cur && cur.msg === 'M2' && cur.level === 1,
          'current job after event 12: ' + JSON.stringify(cur));
    await p.screenshot(path.join(art, 'timeline-demo-event12.png'));
    /* keyboard */
    await p.key('ArrowRight', 'ArrowRight', 39);
    const s1 = await p.eval('qschedViewer.sel');
    await p.key('ArrowLeft', 'ArrowLeft', 37);
    await p.key('ArrowLeft', 'ArrowLeft', 37);
    const s2 = await p.eval('qschedViewer.sel');
    await p.key('ArrowRight', 'ArrowRight', 39, 8 /* shift: 10 */);
    const s3 = await p.eval('qschedViewer.sel');
    check('timeline/keyboard', s1 === 12 && s2 === 10 && s3 === 20, `right ${s1}, left left ${s2}, shift+right ${s3}`);
    /* click a delivery bar in the timeline: D15, the first relay delivery */
    await p.eval(`qschedViewer.fit()`);
    await sleep(150);
    await p.eval(`[...document.querySelectorAll('.qv-lane')]
        .find(l => l.querySelector('.qv-label').textContent.startsWith('relay:down.example')).scrollIntoView()`);
    await sleep(200);
    const bar = await p.eval(`(() => { const lane = [...document.querySelectorAll('.qv-lane')]
        .find(l => l.querySelector('.qv-label').textContent.startsWith('relay:down.example'));
      const r = [...lane.querySelectorAll('rect[data-ev]')]
        .find(x => x.querySelector('title') && x.querySelector('title').textContent.startsWith('D15 '));
      if (!r) return null; const b = r.getBoundingClientRect();
      return [b.left + Math.min(4, b.width / 2), b.top + b.height / 2, +r.getAttribute('data-ev')]; })()`);
    if (!bar) fail('timeline/click-bar', 'no bar for D15');
    else {
      await p.click(bar[0], bar[1]);
      await sleep(150);
      const sel = await p.eval('qschedViewer.sel');
      const recs = await p.eval('qschedViewer.records()');
      check('timeline/click-bar', sel === bar[2] && recs.includes('deliver D15 M4 relay:down.example 2'),
            `selected ${sel} (bar at ${bar[2]}), records ${JSON.stringify(recs)}`);
    }
    /* the dead destination: a dead mark and a revive mark */
    const marks = await p.eval(`[document.querySelectorAll('path title').length,
      [...document.querySelectorAll('path title')].map(t => t.textContent).filter(t => /dead|revive/.test(t)).join('|')]`);
    check('timeline/dead-revive-marks', /declared dead/.test(marks[1]) && /revive, window 5/.test(marks[1]), marks[1]);
    await p.screenshot(path.join(art, 'timeline-demo.png'));
    await p.close();
  }

  /* ---------------- timeline: 100,000 events ---------------- */
  {
    const ev = path.join(art, 'gen-100k.events'), html = path.join(art, 'gen-100k.html');
    fs.writeFileSync(ev, native(['gen', '--seed', '1', '--size', '100000']).out);
    fs.writeFileSync(html, native(['--format', 'html', ev]).out);
    const p = await browser.newPage(1400, 1000);
    const t0 = Date.now();
    await p.goto('file://' + html, 120000);
    await p.waitFor('window.qschedViewer && qschedViewer.ready', 120000);
    const wall = Date.now() - t0;
    const n = await p.eval('qschedViewer.m.n');
    await p.eval('qschedViewer.zoom(64)');
    await p.eval('new Promise(r => { let k = 0; (function f() { qschedViewer.panBy(40); if (++k < 30) requestAnimationFrame(f); else r(); })(); })');
    check('timeline/100k-opens', n === 100000 && p.errors.length === 0,
          `events ${n}, errors ${p.errors.join('; ')}`);
    console.log(`# 100k-event page: ${(fs.statSync(html).size / 1e6).toFixed(1)} MB, ready after ${wall} ms ` +
                '(measured figures: make viewer-bench)');
    await p.screenshot(path.join(art, 'timeline-100k.png'));
    await p.close();
  }

  /* ---------------- playground ---------------- */
  {
    const page = path.join(root, 'build/playground/index.html');
    const p = await browser.newPage(1400, 1000);
    await p.goto('file://' + page + '#lesson=seq-11112211113311');
    await p.waitFor('window.playground && playground.ready', 60000);
    check('playground/no-network', foreignRequests(p).length === 0, foreignRequests(p).join(' '));
    /* every lesson runs without error and gives the native trace */
    const lessonDir = path.join(root, 'docs/playground/lessons');
    const files = fs.readdirSync(lessonDir).filter((f) => /^\d+-.*\.events$/.test(f)).sort();
    const ids = await p.eval('playground.lessons.map(l => l.id)');
    check('playground/lessons-listed', ids.length === files.length && files.every((f) => ids.includes(f.replace(/^\d+-/, '').replace(/\.events$/, ''))),
          `page lists ${ids.join(' ')}`);
    for (const f of files) {
      const id = f.replace(/^\d+-/, '').replace(/\.events$/, '');
      await p.eval(`playground.loadLesson(${JSON.stringify(id)})`);
      const got = await p.eval(`(() => { const d = playground.lastData; return [playground.lastResult.code,
        d.recText ? d.recText + '\\n' : '', d.error]; })()`);
      const nat = native(['--explain', path.join('docs/playground/lessons', f)]);
      check(`playground/lesson/${id}`, got[0] === 0 && nat.code === 0 && got[1] === nat.out,
            `exit ${got[0]}, error ${got[2]}, trace ${got[1] === nat.out ? 'equal' : 'differs from native --explain'}`);
    }
    /* step through the 11112211113311 lesson with the keyboard */
    await p.eval(`playground.loadLesson('seq-11112211113311')`);
    await p.eval('document.activeElement && document.activeElement.blur()');
    const n = await p.eval('playground.viewer.m.n');
    let seq = '', preemptSeen = '', level1 = false;
    for (let i = 0; i < n; i++) {
      const d = await p.eval(`document.querySelector('[data-qv-trace]').innerText`);
      const m = /^deliver D\d+ M(\d+) /m.exec(d);
      if (m) seq += m[1];
      const pre = /^preempt smtp M1 by M2: .*$/m.exec(d);
      if (pre && !preemptSeen) {
        preemptSeen = pre[0];
        const st = await p.eval('playground.viewer.state()');
        const cur = st[0].jobs.find((j) => j.current);
        level1 = !!(cur && cur.msg === 'M2' && cur.level === 1);
        await p.screenshot(path.join(art, 'playground-seq-preempt.png'));
      }
      if (i + 1 < n) await p.key('ArrowRight', 'ArrowRight', 39);
    }
    check('playground/step-sequence', seq === '11112211113311', `delivery sequence shown while stepping: ${seq}`);
    check('playground/step-preempt', preemptSeen ===
          'preempt smtp M1 by M2: counter=4 k=2 loan=0 discount=0 needed=2: 4/2+0 >= 2*(100-0)/100 level=1' && level1,
          `preempt line "${preemptSeen}", M2 current at level 1: ${level1}`);
    const strip = await p.eval(`[...document.querySelectorAll('#pg-viewer .qv-tlane + .qv-lane, #pg-viewer .qv-lane')]
      .length && [...document.querySelectorAll('#pg-viewer svg text[text-anchor=middle]')].map(t => t.textContent).join('')`);
    check('playground/sequence-strip', strip === '11112211113311', `strip reads ${strip}`);
    /* edit: discount 0 -> 50 */
    const runs0 = await p.eval('playground.runs');
    await p.eval(`(() => { const e = document.getElementById('pg-editor');
      const k = e.value.indexOf('default_delivery_slot_discount = 0') + 'default_delivery_slot_discount = '.length;
      e.focus(); e.setSelectionRange(k, k + 1); })()`);
    await p.insertText('50');
    await p.waitFor(`playground.runs > ${runs0} && !document.getElementById('pg-editor').value.includes('discount = 0\\n')`, 20000);
    await sleep(400);
    await p.waitFor('playground.lastData && playground.lastData.recText.includes("discount=50")', 20000);
    const traceText = await p.eval(`document.getElementById('pg-trace').innerText`);
    const seq50 = traceText.split('\n').filter((l) => l.startsWith('deliver ')).map((l) => l.split(' ')[2].slice(1)).join('');
    const strip50 = await p.eval(`[...document.querySelectorAll('#pg-viewer svg text[text-anchor=middle]')].map(t => t.textContent).join('')`);
    check('playground/edit-updates', seq50 === '11221111331111' && strip50 === '11221111331111',
          `after discount = 50: trace ${seq50}, timeline ${strip50}`);
    await p.screenshot(path.join(art, 'playground-seq-discount50.png'));
    /* a bad line: error with its line number, the valid prefix stays */
    await p.eval(`(() => { const e = document.getElementById('pg-editor'); e.focus();
      e.setSelectionRange(e.value.length, e.value.length); })()`);
    const runs1 = await p.eval('playground.runs');
    await p.insertText('\ndone D99 ok\n');
    await p.waitFor(`playground.runs > ${runs1} && playground.lastResult.code === 2`, 20000);
    const stat = await p.eval(`document.getElementById('pg-status').textContent`);
    const nLines = await p.eval(`document.getElementById('pg-editor').value.split('\\n').length - 1`);
    const prefixEvents = await p.eval('playground.lastData.events');
    check('playground/bad-line', new RegExp(`^line ${nLines - 0}: D99 is not in flight`).test(stat) && prefixEvents === n,
          `status "${stat}" (want line ${nLines}), events kept ${prefixEvents} of ${n}`);
    await p.screenshot(path.join(art, 'playground-error.png'));
    check('playground/no-errors', p.errors.length === 0, p.errors.join('; '));
    await p.close();
  }
} catch (e) {
  fail('harness', e.stack || String(e));
} finally {
  await browser.close();
}
process.exit(failed ? 1 : 0);
