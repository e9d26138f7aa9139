/*
 * viewer.js - qsched's timeline viewer: draws the data of
 * `qsched --format view-json` (src/html.c) as a timeline, in a page written
 * by `qsched --format html` or in the playground (docs/playground/).
 *
 * Owns: turning the change lists of the data model into pictures and
 * tables.  Nothing here decides anything about scheduling: every number
 * shown comes from the core, through the trace records (the explain text is
 * qsched's own, byte for byte) and the state read after every event.
 *
 *   per transport  the job list after every event: one row per position,
 *                  coloured by message; the current job outlined, stack
 *                  levels written "L1", "L2", blockers hatched, preemptions
 *                  marked with a triangle (the document's "job list and
 *                  preemption stack" pictures, over time);
 *   per destination  deliveries as bars from `deliver` to `done` (green ok,
 *                  red fail, amber defer, blue still in flight), stacked, so
 *                  their height is the busy count; the window as a step
 *                  line; dead periods shaded, revivals marked.
 * Clicking anywhere selects the event under the pointer: the panel shows
 * its input line, the trace lines it produced (explain level) and the state
 * after it.  Keys: right/left (or j/k) next/previous event, with shift by
 * 10, Home/End, + and - zoom, 0 fits the whole trace.
 *
 * Large traces: only changes are stored, every picture is drawn for the
 * visible range only, and when an event is narrower than a pixel the values
 * of a pixel's events are aggregated (min/max of the window, peak busy
 * count), so a 100,000-event trace draws a few hundred SVG elements per lane
 * (tests/browser measures open time and frame times).
 *
 * No network: SVG is built as markup, no URL is ever loaded.
 */
(function (global) {
    'use strict';

    var ROW = 14;            /* job lane row height, px */
    var MAX_ROWS = 8;        /* job list positions drawn per transport */
    var STRIP = 13;          /* delivery sequence strip above a job lane */
    var LIST_ROW = 18;       /* event list row height, px */
    var MK = { preempt: 1, pop: 2, blocker: 3, unblock: 4, dead: 5,
               revive: 6, retire: 7 };
    var OUT_COLOR = ['#5aa469', '#d9534f', '#e3a33b'];
    var INFLIGHT_COLOR = '#8aa4c8';

    function esc(s) {
        return String(s).replace(/[&<>"]/g, function (c) {
            return c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : '&quot;';
        });
    }

    function hue(id) { return (id * 137.508) % 360; }
    function msgFill(id) { return 'hsl(' + hue(id).toFixed(1) + ',55%,74%)'; }
    function msgDark(id) { return 'hsl(' + hue(id).toFixed(1) + ',55%,32%)'; }

    /* last index j with arr[j] <= v, or -1 */
    function lastLE(arr, v) {
        var lo = 0, hi = arr.length - 1, r = -1;
        while (lo <= hi) {
            var mid = (lo + hi) >> 1;
            if (arr[mid] <= v) { r = mid; lo = mid + 1; } else hi = mid - 1;
        }
        return r;
    }

    /* ---------------------------------------------------------------- */
    /* the data model (src/html.c write_model) into look-up structures    */
    /* ---------------------------------------------------------------- */

    function prepare(d) {
        var m = { raw: d, names: d.names, n: d.events | 0 }, i, j, k;
        var names = d.names;
        m.evText = m.n ? d.evText.split('\n') : [];
        m.evLine = d.evLine;
        m.evTime = d.evTime;
        m.recStart = new Int32Array(m.n + 1);
        for (i = 0; i < m.n; i++) m.recStart[i + 1] = m.recStart[i] + d.evRecs[i];
        m.recText = m.recStart[m.n] ? d.recText.split('\n') : [];
        m.recLevel = d.recLevel;

        m.trans = d.transports.map(function (nid, ti) {
            return { i: ti, name: names[nid], dests: [], listEv: [], lists: [],
                     maxLen: 0, marks: { ev: [], kind: [], a: [] },
                     st: { ev: [], inflight: [], pool: [] }, jobs: {} };
        });
        m.dests = [];
        for (i = 0; i + 1 < d.dests.length; i += 2) {
            var t = m.trans[d.dests[i]];
            var dst = { i: m.dests.length, t: t, name: names[d.dests[i + 1]],
                        ev: [], win: [], busy: [], todo: [], dead: [],
                        deliv: [], maxY: 1, marks: { ev: [], kind: [], a: [] },
                        buckets: null };
            dst.label = t.name + ':' + dst.name;
            m.dests.push(dst);
            t.dests.push(dst);
        }
        var ds = d.destState;
        for (i = 0; i + 5 < ds.length; i += 6) {
            var q = m.dests[ds[i + 1]];
            q.ev.push(ds[i]); q.win.push(ds[i + 2]); q.busy.push(ds[i + 3]);
            q.todo.push(ds[i + 4]); q.dead.push(ds[i + 5]);
            if (ds[i + 2] > q.maxY) q.maxY = ds[i + 2];
            if (ds[i + 3] > q.maxY) q.maxY = ds[i + 3];
        }
        var ts = d.transState;
        for (i = 0; i + 3 < ts.length; i += 4) {
            var tt = m.trans[ts[i + 1]].st;
            tt.ev.push(ts[i]); tt.inflight.push(ts[i + 2]); tt.pool.push(ts[i + 3]);
        }
        d.jobLists.forEach(function (a) {
            var t = m.trans[a[1]];
            t.listEv.push(a[0]);
            t.lists.push(a.slice(2));
            if ((a.length - 2) / 3 > t.maxLen) t.maxLen = (a.length - 2) / 3;
        });
        var jv = d.jobVals;
        for (i = 0; i + 5 < jv.length; i += 6) {
            var jt = m.trans[jv[i + 1]], key = jv[i + 2];
            var rec = jt.jobs[key] || (jt.jobs[key] = { ev: [], counter: [], sel: [], max: [] });
            rec.ev.push(jv[i]); rec.counter.push(jv[i + 3]); rec.sel.push(jv[i + 4]);
            rec.max.push(jv[i + 5]);
        }
        /* deliveries: handle,dest,msg,nrcpt,start,end,outcome */
        var dv = d.deliveries, nd = dv.length / 7;
        m.deliv = { n: nd, handle: new Float64Array(nd), dest: new Int32Array(nd),
                    msg: new Int32Array(nd), nrcpt: new Float64Array(nd),
                    start: new Int32Array(nd), end: new Int32Array(nd),
                    out: new Int8Array(nd), row: new Int16Array(nd) };
        var D = m.deliv;
        for (i = 0; i < nd; i++) {
            D.handle[i] = dv[7 * i]; D.dest[i] = dv[7 * i + 1]; D.msg[i] = dv[7 * i + 2];
            D.nrcpt[i] = dv[7 * i + 3]; D.start[i] = dv[7 * i + 4];
            D.end[i] = dv[7 * i + 5]; D.out[i] = dv[7 * i + 6];
            m.dests[D.dest[i]].deliv.push(i);
        }
        /* per transport, the deliveries in order: the delivery sequence
         * strip on top of its job lane (the document's 11112211113311) */
        m.trans.forEach(function (t) { t.dv = []; });
        for (i = 0; i < nd; i++) m.dests[D.dest[i]].t.dv.push(i);
        var BUCKET = 256;
        m.bucket = BUCKET;
        m.dests.forEach(function (q) {
            /* rows: the lowest row free at the start (busy count = height) */
            var rowEnd = [];
            q.buckets = {};
            q.deliv.forEach(function (x) {
                var s = D.start[x], e = D.end[x] < 0 ? m.n : D.end[x], r;
                for (r = 0; r < rowEnd.length; r++) if (rowEnd[r] < s) break;
                rowEnd[r] = e;
                D.row[x] = r;
                if (r + 1 > q.maxY) q.maxY = r + 1;
                for (var b = Math.floor(s / BUCKET); b <= Math.floor(e / BUCKET); b++)
                    (q.buckets[b] || (q.buckets[b] = [])).push(x);
            });
        });
        var mk = d.markers;
        for (i = 0; i + 3 < mk.length; i += 4) {
            var kind = mk[i + 1], tgt;
            if (kind === MK.dead || kind === MK.revive) tgt = m.dests[mk[i + 2]].marks;
            else tgt = m.trans[mk[i + 2]].marks;
            tgt.ev.push(mk[i]); tgt.kind.push(kind); tgt.a.push(mk[i + 3]);
        }
        /* job lists inside an event, at its preempt records */
        m.moments = {};
        (d.moments || []).forEach(function (a) { m.moments[a[0]] = { t: a[1], list: a.slice(2) }; });
        m.lastTime = m.n ? m.evTime[m.n - 1] : 0;
        j = k = 0;
        return m;
    }

    /* the state after event i (what the detail panel shows) */
    function stateAt(m, i) {
        return m.trans.map(function (t) {
            var li = lastLE(t.listEv, i), list = li >= 0 ? t.lists[li] : [];
            var jobs = [];
            for (var k = 0; k + 2 < list.length; k += 3) {
                var rec = t.jobs[list[k]], vi = rec ? lastLE(rec.ev, i) : -1;
                jobs.push({ msg: m.names[list[k]], msgId: list[k], level: list[k + 1],
                            current: !!(list[k + 2] & 1), blocker: !!(list[k + 2] & 2),
                            preempting: !!(list[k + 2] & 4),
                            counter: vi >= 0 ? rec.counter[vi] : 0,
                            selected: vi >= 0 ? rec.sel[vi] : 0,
                            max: vi >= 0 ? rec.max[vi] : 0 });
            }
            var si = lastLE(t.st.ev, i);
            var dests = [];
            t.dests.forEach(function (q) {
                var qi = lastLE(q.ev, i);
                if (qi < 0 || q.win[qi] === -1) return;
                dests.push({ name: q.name, window: q.win[qi], busy: q.busy[qi],
                             pending: q.todo[qi], dead: !!q.dead[qi] });
            });
            return { transport: t.name, inflight: si >= 0 ? t.st.inflight[si] : 0,
                     pool: si >= 0 ? t.st.pool[si] : null, jobs: jobs, dests: dests };
        });
    }

    /* The document's picture of a job list with its preemption stacks
     * ("first job-> 1--2--3--5--6--8 ... 4 ... current job-> 7"): jobs at
     * level 0 in list order along the top, each preempting job under the
     * job it preempted.  list: (msg, level, flags) triples in list order;
     * the job a level-L job preempted is the first job after it at level
     * L-1 (the core moves a preempting job in front of the job it
     * preempts); a job whose parent is gone (an orphan) starts its own
     * column at its level. */
    function stackSVG(m, list) {
        var jobs = [], k;
        for (k = 0; k + 2 < list.length; k += 3)
            jobs.push({ msg: list[k], level: list[k + 1], flags: list[k + 2], kids: [], parent: null });
        jobs.forEach(function (j, i) {
            if (j.level === 0) return;
            for (var x = i + 1; x < jobs.length; x++)
                if (jobs[x].level === j.level - 1) { j.parent = jobs[x]; jobs[x].kids.unshift(j); return; }
        });
        var col = 0, nodes = [], maxLevel = 0, CW = 58, RH = 30;
        function place(j, c, row) {
            j.col = c; j.row = row; nodes.push(j);
            if (row > maxLevel) maxLevel = row;
            j.kids.forEach(function (kid, i) { place(kid, i === 0 ? c : ++col, row + 1); });
        }
        jobs.forEach(function (j) { if (!j.parent) { place(j, col, j.level); col++; } });
        if (!nodes.length) return '';
        var W = col * CW + 90, H = (maxLevel + 1) * RH + 8, out = [];
        function cx(j) { return 84 + j.col * CW + 22; }
        function cy(j) { return 6 + j.row * RH + 10; }
        var roots = nodes.filter(function (j) { return !j.parent && j.level === 0; });
        for (k = 1; k < roots.length; k++)
            out.push('<line x1="' + cx(roots[k - 1]) + '" y1="' + cy(roots[k]) + '" x2="' + cx(roots[k]) + '" y2="' +
                     cy(roots[k]) + '" stroke="#889" stroke-width="1.5"/>');
        nodes.forEach(function (j) {
            if (j.parent)
                out.push('<path d="M' + cx(j.parent) + ' ' + cy(j.parent) + 'V' + (cy(j) - 10) + 'H' + cx(j) + 'V' + cy(j) +
                         '" fill="none" stroke="#7b3fbf" stroke-width="1.5"/>');
        });
        nodes.forEach(function (j) {
            var cur = j.flags & 1, blk = j.flags & 2;
            out.push('<rect x="' + (cx(j) - 22) + '" y="' + (cy(j) - 9) + '" width="44" height="18" rx="4" fill="' +
                     (blk ? 'url(#qv-hatch)' : msgFill(j.msg)) + '" stroke="' + (cur ? '#111' : msgDark(j.msg)) +
                     '" stroke-width="' + (cur ? 2 : 1) + '"' + (j.level > 0 && !j.parent ? ' stroke-dasharray="3 2"' : '') + '/>' +
                     '<text x="' + cx(j) + '" y="' + (cy(j) + 4) + '" text-anchor="middle" fill="#1d2430">' + esc(m.names[j.msg]) + '</text>');
        });
        out.push('<text x="2" y="' + (cy(nodes[0]) + 4) + '" fill="#556">job list</text>');
        if (maxLevel > 0) out.push('<text x="2" y="' + (6 + RH + 14) + '" fill="#556">stack level 1</text>');
        if (maxLevel > 1) out.push('<text x="2" y="' + (6 + 2 * RH + 14) + '" fill="#556">level 2+</text>');
        return '<svg class="qv-stack" width="' + W + '" height="' + H + '">' + out.join('') + '</svg>';
    }

    /* ---------------------------------------------------------------- */
    /* the viewer                                                         */
    /* ---------------------------------------------------------------- */

    function Viewer(root, data, opts) {
        this.root = root;
        this.opts = opts || {};
        this.sel = 0;
        this.x0 = 0;
        this.ppe = 1;
        this.explain = true;
        this.pending = false;
        this.build();
        this.setData(data, true);
    }

    Viewer.prototype.build = function () {
        var self = this, r = this.root;
        r.classList.add('qv');
        r.innerHTML =
            '<svg width="0" height="0" style="position:absolute" aria-hidden="true">' +
            '<defs><pattern id="qv-hatch" width="6" height="6" patternUnits="userSpaceOnUse" ' +
            'patternTransform="rotate(45)"><rect width="6" height="6" fill="#f3d0c8"/>' +
            '<line x1="0" y1="0" x2="0" y2="6" stroke="#c0392b" stroke-width="2"/></pattern>' +
            '<pattern id="qv-deadhatch" width="8" height="8" patternUnits="userSpaceOnUse" ' +
            'patternTransform="rotate(45)"><rect width="8" height="8" fill="#e4e4e4"/>' +
            '<line x1="0" y1="0" x2="0" y2="8" stroke="#b5b5b5" stroke-width="3"/></pattern>' +
            '</defs></svg>' +
            (this.opts.embedded ? '' : '<div class="qv-head"><h1>qsched timeline</h1>' +
                '<span class="qv-sub" data-qv="source"></span>' +
                '<span class="qv-sub" data-qv="stats"></span></div>') +
            '<div class="qv-err" data-qv="error" hidden></div>' +
            '<div class="qv-warn" data-qv="warnings" hidden></div>' +
            '<div class="qv-bar">' +
            '<button data-qv="prev" title="previous event (left arrow)">&#9664;</button>' +
            '<button data-qv="next" title="next event (right arrow)">&#9654;</button>' +
            '<span class="qv-pos" data-qv="pos"></span>' +
            '<button data-qv="zout" title="zoom out (-)">&minus;</button>' +
            '<button data-qv="zin" title="zoom in (+)">+</button>' +
            '<button data-qv="fit" title="whole trace (0)">fit</button>' +
            '<input class="qv-range" type="range" min="0" max="1000" value="0" data-qv="range" title="scroll the timeline">' +
            '<label><input type="checkbox" data-qv="explain" checked> explain lines</label>' +
            '</div>' +
            '<div class="qv-bar qv-legend" data-qv="legend">' + legendHTML() + '</div>' +
            '<div class="qv-main" data-qv="main"><div class="qv-axis qv-lane">' +
            '<div class="qv-label"><b>event</b><small>virtual time</small></div>' +
            '<div class="qv-plot" data-qv="axis"></div></div>' +
            '<div data-qv="lanes"></div><div class="qv-cursor" data-qv="cursor"></div></div>' +
            '<div class="qv-bottom"><div class="qv-list" tabindex="0" data-qv="list">' +
            '<div data-qv="spacer"></div></div>' +
            '<div class="qv-detail" data-qv="detail"></div></div>';
        this.el = {};
        Array.prototype.forEach.call(r.querySelectorAll('[data-qv]'), function (e) {
            self.el[e.getAttribute('data-qv')] = e;
        });
        var el = this.el;
        el.prev.onclick = function () { self.step(-1); };
        el.next.onclick = function () { self.step(1); };
        el.zin.onclick = function () { self.zoom(2); };
        el.zout.onclick = function () { self.zoom(0.5); };
        el.fit.onclick = function () { self.fit(); };
        el.explain.onchange = function () { self.explain = el.explain.checked; self.showDetail(); };
        el.range.oninput = function () {
            var span = self.m.n - self.visibleEvents();
            self.x0 = span > 0 ? span * el.range.value / 1000 : 0;
            self.redraw();
        };
        el.main.addEventListener('scroll', function () { self.redraw(); });
        el.main.addEventListener('wheel', function (e) {
            var rect = el.axis.getBoundingClientRect();
            if (e.ctrlKey || e.metaKey) {
                e.preventDefault();
                self.zoom(e.deltaY < 0 ? 1.25 : 0.8, self.x0 + (e.clientX - rect.left) / self.ppe);
            } else if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
                e.preventDefault();
                self.panBy(e.shiftKey ? e.deltaY : e.deltaX);
            }
        }, { passive: false });
        var drag = null;
        el.main.addEventListener('mousedown', function (e) {
            var rect = el.axis.getBoundingClientRect();
            if (e.clientX < rect.left) return;
            drag = { x: e.clientX, x0: self.x0, moved: false };
        });
        global.addEventListener('mousemove', function (e) {
            if (!drag) return;
            if (Math.abs(e.clientX - drag.x) > 3) drag.moved = true;
            if (drag.moved) { self.x0 = drag.x0 - (e.clientX - drag.x) / self.ppe; self.redraw(); }
        });
        global.addEventListener('mouseup', function (e) {
            var rect = el.axis.getBoundingClientRect();
            if (drag && !drag.moved && e.clientX >= rect.left) {
                var ev = Math.floor(self.x0 + (e.clientX - rect.left) / self.ppe);
                var t = e.target;
                while (t && t !== el.main && !(t.getAttribute && t.getAttribute('data-ev'))) t = t.parentNode;
                if (t && t.getAttribute && t.getAttribute('data-ev')) ev = +t.getAttribute('data-ev');
                self.select(ev, false);
            }
            drag = null;
        });
        el.list.addEventListener('scroll', function () { self.drawList(); });
        el.list.addEventListener('click', function (e) {
            var t = e.target;
            while (t && t !== el.list && !t.getAttribute('data-i')) t = t.parentNode;
            if (t && t !== el.list) self.select(+t.getAttribute('data-i'), true);
        });
        this.onKey = function (e) {
            var tag = (e.target && e.target.tagName) || '';
            if (tag === 'TEXTAREA' || (tag === 'INPUT' && e.target.type !== 'checkbox' &&
                e.target.type !== 'range')) return;
            var k = e.key, big = e.shiftKey ? 10 : 1;
            if (k === 'ArrowRight' || k === 'j' || (k === 'ArrowDown' && e.target === el.list)) self.step(big);
            else if (k === 'ArrowLeft' || k === 'k' || (k === 'ArrowUp' && e.target === el.list)) self.step(-big);
            else if (k === 'Home') self.select(0, true);
            else if (k === 'End') self.select(self.m.n - 1, true);
            else if (k === '+' || k === '=') self.zoom(2);
            else if (k === '-') self.zoom(0.5);
            else if (k === '0') self.fit();
            else return;
            e.preventDefault();
        };
        (this.opts.keyTarget || global.document).addEventListener('keydown', this.onKey);
        global.addEventListener('resize', function () { self.redraw(); });
    };

    function legendHTML() {
        function sw(inner, w) {
            return '<svg width="' + (w || 22) + '" height="12">' + inner + '</svg>';
        }
        return '<span>' + sw('<rect x="1" y="2" width="20" height="8" fill="' + OUT_COLOR[0] + '"/>') + ' delivery ok</span>' +
            '<span>' + sw('<rect x="1" y="2" width="20" height="8" fill="' + OUT_COLOR[1] + '"/>') + ' fail</span>' +
            '<span>' + sw('<rect x="1" y="2" width="20" height="8" fill="' + OUT_COLOR[2] + '"/>') + ' defer</span>' +
            '<span>' + sw('<rect x="1" y="2" width="20" height="8" fill="' + INFLIGHT_COLOR + '"/>') + ' in flight</span>' +
            '<span>' + sw('<path d="M1 9H8V3H21" fill="none" stroke="#1d2430" stroke-width="2"/>') + ' window</span>' +
            '<span>' + sw('<rect x="1" y="1" width="20" height="10" fill="url(#qv-deadhatch)"/>') + ' dead</span>' +
            '<span>' + sw('<path d="M6 11L11 3L16 11Z" fill="#2e8b57"/>') + ' revive</span>' +
            '<span>' + sw('<rect x="1" y="1" width="20" height="10" fill="#cfe0f5" stroke="#111" stroke-width="1.5"/>') + ' current job</span>' +
            '<span>' + sw('<rect x="1" y="1" width="20" height="10" fill="url(#qv-hatch)"/>') + ' blocker</span>' +
            '<span>' + sw('<path d="M5 1L17 1L11 10Z" fill="#7b3fbf"/>') + ' preemption</span>' +
            '<span>' + sw('<rect x="1" y="1" width="9" height="10" fill="' + msgDark(1) + '"/><rect x="11" y="1" width="9" height="10" fill="' + msgDark(2) + '"/>') + ' delivery sequence (by message)</span>' +
            '<span class="qv-help">L1, L2: stack level &middot; click: explain &middot; &larr;/&rarr;: step &middot; +/&minus;/0: zoom &middot; shift+wheel: scroll</span>';
    }

    Viewer.prototype.setData = function (data, first) {
        var self = this, el = this.el;
        this.data = data;
        this.m = prepare(data);
        var m = this.m;
        if (el.source) el.source.textContent = (data.source || '') + ' \u00b7 profile ' + (data.profile || '');
        if (el.stats) el.stats.textContent = statsText(data.stats, m.n);
        el.error.hidden = !data.error;
        el.error.textContent = data.error ? 'input error (the trace stops before this line): ' + data.error : '';
        el.warnings.hidden = !(data.warnings && data.warnings.length);
        el.warnings.textContent = (data.warnings || []).map(function (w) { return 'warning: ' + w; }).join('\n');
        /* lanes */
        var html = [];
        this.lanes = [];
        m.trans.forEach(function (t) {
            var rows = Math.max(1, Math.min(MAX_ROWS, t.maxLen));
            self.lanes.push({ kind: 'jobs', t: t, h: rows * ROW + 6 + STRIP, rows: rows });
            html.push('<div class="qv-lane qv-tlane"><div class="qv-label"><b>' + esc(t.name) +
                      '</b> job list<small>' + (t.maxLen > rows ? 'first ' + rows + ' of up to ' + t.maxLen + ' jobs'
                      : 'up to ' + t.maxLen + ' job' + (t.maxLen === 1 ? '' : 's')) + '</small></div>' +
                      '<div class="qv-plot" style="height:' + (rows * ROW + 6 + STRIP) + 'px"></div></div>');
            t.dests.forEach(function (q) {
                var unit = Math.max(3, Math.min(10, Math.floor(48 / q.maxY)));
                var h = q.maxY * unit + 16;
                self.lanes.push({ kind: 'dest', q: q, h: h, unit: unit });
                html.push('<div class="qv-lane"><div class="qv-label" title="' + esc(q.label) + '">' +
                          esc(q.label) + '<small>window, deliveries (max ' + q.maxY + ')</small></div>' +
                          '<div class="qv-plot" style="height:' + h + 'px"></div></div>');
            });
        });
        el.lanes.innerHTML = html.join('');
        var plots = el.lanes.querySelectorAll('.qv-plot');
        this.lanes.forEach(function (l, i) { l.plot = plots[i]; l.gen = -1; });
        this.buf = null;
        el.spacer.style.height = (m.n * LIST_ROW) + 'px';
        this.listKey = '';
        if (first) {
            this.sel = 0;
            this.fitNeeded = true;
        } else if (this.sel >= m.n) {
            this.sel = Math.max(0, m.n - 1);
        }
        this.redraw();
        this.showDetail();
    };

    function statsText(st, n) {
        if (!st) return n + ' events';
        return n + ' events \u00b7 ' + st.deliveries + ' deliveries \u00b7 ' + st.preemptions +
            ' preemptions \u00b7 ' + st.deaths + ' deaths \u00b7 ' + st.revivals + ' revivals';
    }

    Viewer.prototype.width = function () {
        return Math.max(50, this.el.axis.clientWidth);
    };
    Viewer.prototype.visibleEvents = function () { return this.width() / this.ppe; };
    Viewer.prototype.clampView = function () {
        var W = this.width(), n = Math.max(1, this.m.n);
        var minPpe = W / n;
        if (this.ppe < minPpe) this.ppe = minPpe;
        if (this.ppe > 60) this.ppe = Math.max(60, minPpe);
        var maxX0 = Math.max(0, n - W / this.ppe);
        if (this.x0 > maxX0) this.x0 = maxX0;
        if (this.x0 < 0) this.x0 = 0;
    };
    Viewer.prototype.fit = function () {
        var W = this.width(), n = Math.max(1, this.m.n);
        this.ppe = Math.min(24, W / n);
        this.x0 = 0;
        this.redraw();
    };
    Viewer.prototype.zoom = function (f, center) {
        if (center === undefined) center = this.sel + 0.5;
        var px = (center - this.x0) * this.ppe;
        if (px < 0 || px > this.width()) px = this.width() / 2;
        this.ppe *= f;
        this.clampView();
        this.x0 = center - px / this.ppe;
        this.redraw();
    };
    Viewer.prototype.panBy = function (px) {
        this.x0 += px / this.ppe;
        this.redraw();
    };

    Viewer.prototype.step = function (d) { this.select(this.sel + d, true); };
    Viewer.prototype.select = function (i, reveal) {
        var m = this.m;
        if (!m.n) return;
        i = Math.max(0, Math.min(m.n - 1, i | 0));
        this.sel = i;
        if (reveal !== false) {
            var vis = this.visibleEvents();
            if (i < this.x0 || i + 1 > this.x0 + vis) this.x0 = i + 0.5 - vis / 2;
            var L = this.el.list, top = i * LIST_ROW;
            if (top < L.scrollTop || top + LIST_ROW > L.scrollTop + L.clientHeight)
                L.scrollTop = Math.max(0, top - L.clientHeight / 2);
        }
        this.redraw();
        this.showDetail();
        if (this.opts.onSelect) this.opts.onSelect(i);
    };

    Viewer.prototype.redraw = function () {
        var self = this;
        if (this.pending) return;
        this.pending = true;
        var raf = global.requestAnimationFrame || function (f) { return setTimeout(f, 0); };
        raf(function () { self.pending = false; self.draw(); });
    };

    /* columns of the range [from, from + widthPx / ppe) in events:
     * {a, b (first and last event), xa, xb (px from `from`)} - one per
     * event when events are at least a pixel wide, else one per pixel */
    Viewer.prototype.columns = function (from, widthPx) {
        var m = this.m, cols = [], ppe = this.ppe, i, px;
        if (!m.n) return cols;
        if (ppe >= 1) {
            var first = Math.max(0, Math.floor(from)), last = Math.min(m.n - 1, Math.ceil(from + widthPx / ppe));
            for (i = first; i <= last; i++)
                cols.push({ a: i, b: i, xa: (i - from) * ppe, xb: (i + 1 - from) * ppe });
        } else {
            for (px = 0; px < widthPx; px++) {
                var a = Math.ceil(from + px / ppe), b = Math.ceil(from + (px + 1) / ppe) - 1;
                if (a >= m.n) break;
                if (b >= m.n) b = m.n - 1;
                if (b < a) continue;
                cols.push({ a: a, b: b, xa: px, xb: px + 1 });
            }
        }
        return cols;
    };

    /* Drawing: the lanes are drawn for a buffer three views wide around
     * the visible range and moved with a CSS transform while the view
     * stays inside it, so scrolling redraws only every view-width. */
    Viewer.prototype.draw = function () {
        var m = this.m, el = this.el, self = this;
        if (this.fitNeeded) { this.fitNeeded = false; this.ppe = Math.min(24, this.width() / Math.max(1, m.n)); this.x0 = 0; }
        this.clampView();
        var W = this.width(), vis = W / this.ppe;
        var buf = this.buf;
        if (!buf || buf.ppe !== this.ppe || buf.W !== W || buf.data !== m ||
            this.x0 < buf.from || this.x0 + vis > buf.to) {
            var from = this.ppe >= 1 ? Math.floor(this.x0 - vis) : this.x0 - vis;
            if (from < 0) from = 0;
            buf = this.buf = { ppe: this.ppe, W: W, data: m, from: from, to: from + 3 * vis,
                               px: Math.ceil(3 * W) + 2, gen: (this.buf ? this.buf.gen : 0) + 1 };
            buf.cols = this.columns(from, buf.px);
            el.axis.innerHTML = this.axisSVG(buf);
        }
        var shift = 'translateX(' + ((buf.from - this.x0) * this.ppe).toFixed(1) + 'px)';
        el.axis.firstChild.style.transform = shift;
        /* lanes in view only */
        var main = el.main, top = main.scrollTop, bottom = top + main.clientHeight;
        this.lanes.forEach(function (l) {
            var y = l.plot.offsetTop, h = l.h;
            if (y + h < top - 50 || y > bottom + 50) return;
            if (l.gen !== buf.gen) {
                l.gen = buf.gen;
                renderPrims(l.plot, l.kind === 'jobs' ? self.jobsLane(l, buf) : self.destLane(l, buf));
            }
            l.plot.firstChild.style.transform = shift;
        });
        /* cursor */
        var cx = (this.sel + 0.5 - this.x0) * this.ppe;
        var lx = el.axis.getBoundingClientRect().left - main.getBoundingClientRect().left;
        el.cursor.style.left = (lx + cx) + 'px';
        el.cursor.style.display = cx < 0 || cx > W ? 'none' : '';
        el.cursor.style.height = main.scrollHeight + 'px';
        var span = m.n - vis;
        el.range.value = span > 0 ? Math.round(1000 * this.x0 / span) : 0;
        el.range.disabled = !(span > 0);
        el.pos.textContent = m.n ? 'event ' + (this.sel + 1) + ' of ' + m.n + ' \u00b7 line ' +
            m.evLine[this.sel] + ' \u00b7 time ' + m.evTime[this.sel] + 's' : 'no events';
        this.drawList();
        this.frames = (this.frames || 0) + 1;
    };

    Viewer.prototype.axisSVG = function (buf) {
        var m = this.m, ppe = this.ppe, x0 = buf.from, out = [], W = buf.px;
        var minGap = 70, step = 1;
        while (step * ppe < minGap) step *= (String(step)[0] === '2' ? 2.5 : 2);
        step = Math.round(step);
        var first = Math.ceil(x0 / step) * step;
        for (var i = first; i < Math.min(m.n, x0 + W / ppe); i += step) {
            var x = (i + 0.5 - x0) * ppe;
            out.push('<line x1="' + x.toFixed(1) + '" x2="' + x.toFixed(1) + '" y1="22" y2="30" stroke="#99a"/>' +
                     '<text x="' + (x + 3).toFixed(1) + '" y="11">#' + (i + 1) + '</text>' +
                     '<text x="' + (x + 3).toFixed(1) + '" y="22" fill="#667">' + m.evTime[i] + 's</text>');
        }
        return '<svg width="' + W + '" height="30">' + out.join('') + '</svg>';
    };

    /* Lane pictures are lists of primitives (rect, text, path), drawn as
     * SVG while they are few (each element clickable, with a tooltip) and
     * on a canvas when they are many (a whole 100,000-event trace at once:
     * thousands of one-pixel cells, which SVG builds too slowly); a click on
     * a canvas selects the event under the pointer. */
    var SVG_MAX = 1500;

    function Prims(W, H) { this.W = W; this.H = H; this.list = []; }
    Prims.prototype.rect = function (x, y, w, h, fill, o) {
        this.list.push({ t: 0, x: x, y: y, w: w, h: h, fill: fill, o: o || {} });
    };
    Prims.prototype.text = function (x, y, s, fill, anchor) {
        this.list.push({ t: 1, x: x, y: y, s: s, fill: fill, anchor: anchor });
    };
    Prims.prototype.path = function (d, fill, o) {
        this.list.push({ t: 2, d: d, fill: fill, o: o || {} });
    };
    function attrs(o) {
        return (o.stroke ? ' stroke="' + o.stroke + '" stroke-width="' + (o.sw || 1) + '"' : '') +
            (o.dash ? ' stroke-dasharray="3 2"' : '') +
            (o.ev !== undefined ? ' data-ev="' + o.ev + '"' : '') + (o.cls ? ' class="' + o.cls + '"' : '');
    }
    /* '#qv-hatch' names a pattern of the page's hidden <defs> */
    function fillAttr(f) { return f && f.indexOf('#qv-') === 0 ? 'url(' + f + ')' : f; }
    Prims.prototype.svg = function () {
        var out = [];
        this.list.forEach(function (p) {
            var title = p.o && p.o.title ? '<title>' + esc(p.o.title) + '</title>' : '';
            var fill = fillAttr(p.fill);
            if (p.t === 0)
                out.push('<rect x="' + p.x.toFixed(1) + '" y="' + p.y + '" width="' + Math.max(0.5, p.w).toFixed(1) +
                         '" height="' + p.h + '" fill="' + fill + '"' + attrs(p.o) + (title ? '>' + title + '</rect>' : '/>'));
            else if (p.t === 1)
                out.push('<text x="' + p.x.toFixed(1) + '" y="' + p.y + '" fill="' + p.fill + '"' +
                         (p.anchor ? ' text-anchor="' + p.anchor + '"' : '') + '>' + esc(p.s) + '</text>');
            else
                out.push('<path d="' + p.d + '" fill="' + (fill || 'none') + '"' + attrs(p.o) +
                         (title ? '>' + title + '</path>' : '/>'));
        });
        return '<svg width="' + this.W + '" height="' + this.H + '">' + out.join('') + '</svg>';
    };
    function pattern(ctx, bg, fg, size, width) {
        var c = global.document.createElement('canvas'), g;
        c.width = c.height = size;
        g = c.getContext('2d');
        g.fillStyle = bg;
        g.fillRect(0, 0, size, size);
        g.strokeStyle = fg;
        g.lineWidth = width;
        g.beginPath();
        g.moveTo(-1, size + 1); g.lineTo(size + 1, -1);
        g.moveTo(-1, 1); g.lineTo(1, -1);
        g.moveTo(size - 1, size + 1); g.lineTo(size + 1, size - 1);
        g.stroke();
        return ctx.createPattern(c, 'repeat');
    }
    Prims.prototype.canvas = function () {
        var dpr = global.devicePixelRatio || 1, c = global.document.createElement('canvas');
        c.width = Math.ceil(this.W * dpr);
        c.height = Math.ceil(this.H * dpr);
        c.style.width = this.W + 'px';
        c.style.height = this.H + 'px';
        c.style.display = 'block';
        var ctx = c.getContext('2d');
        ctx.scale(dpr, dpr);
        var pats = { '#qv-hatch': pattern(ctx, '#f3d0c8', '#c0392b', 6, 2),
                     '#qv-deadhatch': pattern(ctx, '#e4e4e4', '#b5b5b5', 8, 3) };
        ctx.font = '10px system-ui, sans-serif';
        this.list.forEach(function (p) {
            var fill = pats[p.fill] || p.fill, o = p.o || {};
            if (p.t === 0) {
                ctx.fillStyle = fill;
                ctx.fillRect(p.x, p.y, Math.max(0.5, p.w), p.h);
                if (o.stroke) {
                    ctx.strokeStyle = o.stroke;
                    ctx.lineWidth = o.sw || 1;
                    ctx.setLineDash(o.dash ? [3, 2] : []);
                    ctx.strokeRect(p.x, p.y, Math.max(0.5, p.w), p.h);
                }
            } else if (p.t === 1) {
                ctx.fillStyle = p.fill;
                ctx.textAlign = p.anchor === 'middle' ? 'center' : 'left';
                ctx.fillText(p.s, p.x, p.y);
            } else {
                var path = new global.Path2D(p.d);
                if (fill && fill !== 'none') { ctx.fillStyle = fill; ctx.fill(path); }
                if (o.stroke) {
                    ctx.strokeStyle = o.stroke;
                    ctx.lineWidth = o.sw || 1;
                    ctx.setLineDash([]);
                    ctx.stroke(path);
                }
            }
        });
        return c;
    };
    function renderPrims(plot, P) {
        if (P.list.length <= SVG_MAX) {
            plot.innerHTML = P.svg();
        } else {
            plot.innerHTML = '';
            plot.appendChild(P.canvas());
        }
    }

    /* the job list of a transport: one row per position */
    Viewer.prototype.jobsLane = function (l, buf) {
        var t = l.t, m = this.m, rows = l.rows, r, cols = buf.cols;
        var P = new Prims(buf.px, l.h);
        var runs = [];
        for (r = 0; r < rows; r++) runs.push(null);
        var li = -1, ci;
        function flush(r, xb) {
            var run = runs[r];
            if (!run) return;
            var x = run.xa, w = xb - run.xa, y = 3 + STRIP + r * ROW;
            if (run.msg >= 0) {
                var flags = run.flags;
                P.rect(x, y, w, ROW - 2, (flags & 2) ? '#qv-hatch' : msgFill(run.msg),
                       (flags & 1) ? { stroke: '#111', sw: 1.5, ev: run.ev }
                       : (flags & 4) ? { stroke: msgDark(run.msg), dash: true, ev: run.ev } : { ev: run.ev });
                var label = m.names[run.msg] + (run.level ? ' L' + run.level : '');
                if (w > label.length * 6 + 6) P.text(x + 3, y + 10, label, msgDark(run.msg));
            }
            runs[r] = null;
        }
        for (ci = 0; ci < cols.length; ci++) {
            var c = cols[ci];
            while (li + 1 < t.listEv.length && t.listEv[li + 1] <= c.b) li++;
            var list = li >= 0 ? t.lists[li] : null;
            for (r = 0; r < rows; r++) {
                var msg = -1, level = 0, flags = 0;
                if (list && 3 * r + 2 < list.length) { msg = list[3 * r]; level = list[3 * r + 1]; flags = list[3 * r + 2]; }
                var run = runs[r];
                if (run && run.msg === msg && run.level === level && run.flags === flags) continue;
                flush(r, c.xa);
                runs[r] = { msg: msg, level: level, flags: flags, xa: c.xa, ev: c.a };
            }
        }
        var xend = cols.length ? cols[cols.length - 1].xb : 0;
        for (r = 0; r < rows; r++) flush(r, xend);
        this.strip(P, t, buf);
        this.marks(P, t.marks, buf, 0, true);
        return P;
    };

    /* the delivery sequence of a transport: one cell per deliver line,
     * coloured and labelled by message (at most one per pixel) */
    Viewer.prototype.strip = function (P, t, buf) {
        var m = this.m, D = m.deliv, cols = buf.cols, ppe = this.ppe, x0 = buf.from;
        if (!cols.length || !t.dv.length) return;
        var a = cols[0].a, b = cols[cols.length - 1].b, lastPx = -1;
        var lo = 0, hi = t.dv.length;
        while (lo < hi) { var mid = (lo + hi) >> 1; if (D.start[t.dv[mid]] < a) lo = mid + 1; else hi = mid; }
        for (var k = lo; k < t.dv.length && D.start[t.dv[k]] <= b; k++) {
            var x = t.dv[k], s = D.start[x], xa = (s - x0) * ppe, w = Math.max(1, ppe - 1);
            if (Math.floor(xa) === lastPx) continue;
            lastPx = Math.floor(xa);
            P.rect(xa, 1, w, STRIP - 2, msgDark(D.msg[x]),
                   { ev: s, cls: 'qv-clickable', title: 'deliver D' + D.handle[x] + ' ' + m.names[D.msg[x]] });
            var label = m.names[D.msg[x]].replace(/^M(?=\d+$)/, '');
            if (w > label.length * 6 + 2) P.text(xa + w / 2, STRIP - 3, label, '#fff', 'middle');
        }
    };

    /* preemption / revive / dead marks in the visible range, at most one
     * per pixel column */
    Viewer.prototype.marks = function (P, mk, buf, h, isJobs) {
        var cols = buf.cols;
        if (!cols.length || !mk.ev.length) return;
        var x0 = buf.from, ppe = this.ppe, m = this.m;
        var a = cols[0].a, b = cols[cols.length - 1].b, j = lastLE(mk.ev, a - 1) + 1, lastPx = -9;
        for (; j < mk.ev.length && mk.ev[j] <= b; j++) {
            var kind = mk.kind[j], x = (mk.ev[j] + 0.5 - x0) * ppe;
            if (isJobs && kind !== MK.preempt) continue;
            if (!isJobs && kind !== MK.revive && kind !== MK.dead) continue;
            if (Math.round(x) === lastPx) continue;
            lastPx = Math.round(x);
            if (kind === MK.preempt)
                P.path('M' + (x - 5).toFixed(1) + ' ' + STRIP + 'L' + (x + 5).toFixed(1) + ' ' + STRIP + 'L' + x.toFixed(1) +
                       ' ' + (STRIP + 8) + 'Z', '#7b3fbf',
                       { ev: mk.ev[j], cls: 'qv-clickable', title: 'preempted by ' + m.names[mk.a[j]] });
            else if (kind === MK.revive)
                P.path('M' + (x - 5).toFixed(1) + ' ' + h + 'L' + (x + 5).toFixed(1) + ' ' + h + 'L' +
                       x.toFixed(1) + ' ' + (h - 9) + 'Z', '#2e8b57', { ev: mk.ev[j], title: 'revive, window ' + mk.a[j] });
            else
                P.path('M' + (x - 4).toFixed(1) + ' 2L' + (x + 4).toFixed(1) + ' 10M' + (x + 4).toFixed(1) +
                       ' 2L' + (x - 4).toFixed(1) + ' 10', 'none',
                       { stroke: '#8a1111', sw: 2, ev: mk.ev[j], title: 'declared dead' });
        }
    };

    /* a destination: dead periods, deliveries (or the busy count when
     * bars would be thinner than 2 px), the window */
    Viewer.prototype.destLane = function (l, buf) {
        var q = l.q, m = this.m, unit = l.unit, H = l.h, base = H - 3;
        var x0 = buf.from, ppe = this.ppe, D = m.deliv, ci, cols = buf.cols;
        var P = new Prims(buf.px, H);
        if (!cols.length) return P;
        function y(v) { return base - v * unit; }
        /* per column: window min/max/last, busy max, dead, exists */
        var j = -1, agg = [];
        for (ci = 0; ci < cols.length; ci++) {
            var c = cols[ci];
            while (j + 1 < q.ev.length && q.ev[j + 1] <= c.a) j++;
            var w = j >= 0 ? q.win[j] : -1, dead = j >= 0 ? q.dead[j] : 0, busy = j >= 0 ? q.busy[j] : 0;
            var col = { wmin: w, wmax: w, wlast: w, bmax: busy, dead: dead };
            while (j + 1 < q.ev.length && q.ev[j + 1] <= c.b) {
                j++;
                w = q.win[j];
                if (w < col.wmin) col.wmin = w;
                if (w > col.wmax) col.wmax = w;
                col.wlast = w;
                if (q.busy[j] > col.bmax) col.bmax = q.busy[j];
                if (q.dead[j]) col.dead = 1;
            }
            agg.push(col);
        }
        /* dead periods */
        var run = -1;
        for (ci = 0; ci <= cols.length; ci++) {
            var isDead = ci < cols.length && agg[ci].dead;
            if (isDead && run < 0) run = ci;
            if (!isDead && run >= 0) {
                P.rect(cols[run].xa, 0, Math.max(1, cols[ci - 1].xb - cols[run].xa), H, '#qv-deadhatch');
                if (cols[ci - 1].xb - cols[run].xa > 30) P.text(cols[run].xa + 3, 11, 'dead', '#555');
                run = -1;
            }
        }
        if (ppe >= 2) {
            /* deliveries as bars */
            var a = cols[0].a, b = cols[cols.length - 1].b, seen = {};
            for (var bk = Math.floor(a / m.bucket); bk <= Math.floor(b / m.bucket); bk++) {
                var list = q.buckets[bk];
                if (!list) continue;
                for (var k = 0; k < list.length; k++) {
                    var x = list[k];
                    if (seen[x]) continue;
                    seen[x] = 1;
                    var s = D.start[x], e = D.end[x] < 0 ? m.n - 1 : D.end[x];
                    if (e < a || s > b) continue;
                    var xa = (s - x0) * ppe, xb = (e + 1 - x0) * ppe, row = D.row[x];
                    P.rect(xa + 0.5, y(row + 1) + 1, Math.max(1, xb - xa - 1), Math.max(1, unit - 1),
                           D.end[x] < 0 ? INFLIGHT_COLOR : OUT_COLOR[D.out[x]],
                           { ev: s, cls: 'qv-clickable', title: 'D' + D.handle[x] + ' ' + m.names[D.msg[x]] + ' ' +
                             D.nrcpt[x] + ' rcpt, events ' + (s + 1) + '-' + (D.end[x] < 0 ? 'end' : e + 1) +
                             (D.end[x] < 0 ? ', in flight' : ', ' + ['ok', 'fail', 'defer'][D.out[x]]) });
                    if (xb - xa > 26 && unit >= 9) P.text(xa + 3, y(row) - 2, 'D' + D.handle[x], '#fff');
                }
            }
        } else {
            /* aggregated: peak busy count per column */
            var p = [];
            for (ci = 0; ci < cols.length; ci++)
                if (agg[ci].bmax > 0)
                    p.push('M' + cols[ci].xa.toFixed(1) + ' ' + base + 'V' + y(agg[ci].bmax) + 'H' + cols[ci].xb.toFixed(1) + 'V' + base + 'Z');
            if (p.length) P.path(p.join(''), INFLIGHT_COLOR);
        }
        /* the window: a step line, a vertical stroke where a column holds
         * several values */
        var d = [], prev = null;
        for (ci = 0; ci < cols.length; ci++) {
            var g = agg[ci], c2 = cols[ci];
            if (g.wmax <= 0 || g.dead) { prev = null; continue; }
            var lo = Math.max(1, g.wmin), hi = g.wmax;
            if (prev === null) d.push('M' + c2.xa.toFixed(1) + ' ' + y(lo === hi ? hi : g.wlast));
            else if (prev !== lo || lo !== hi) d.push('V' + y(lo === hi ? lo : g.wlast));
            if (lo !== hi) d.push('M' + (c2.xa + 0.5).toFixed(1) + ' ' + y(lo) + 'V' + y(hi) + 'M' + (c2.xa + 0.5).toFixed(1) + ' ' + y(g.wlast));
            d.push('H' + c2.xb.toFixed(1));
            prev = g.wlast;
        }
        if (d.length) P.path(d.join(''), 'none', { stroke: '#1d2430', sw: 2 });
        this.marks(P, q.marks, buf, H, false);
        return P;
    };

    /* the event list: only the rows in view exist */
    Viewer.prototype.drawList = function () {
        var L = this.el.list, m = this.m;
        var first = Math.max(0, Math.floor(L.scrollTop / LIST_ROW) - 5);
        var last = Math.min(m.n - 1, Math.ceil((L.scrollTop + L.clientHeight) / LIST_ROW) + 5);
        var key = first + '/' + last + '/' + this.sel + '/' + m.n;
        if (key === this.listKey) return;
        this.listKey = key;
        var html = [];
        for (var i = first; i <= last; i++) {
            var out = '', r0 = m.recStart[i], r1 = m.recStart[i + 1], nd = 0, firstD = '';
            for (var r = r0; r < r1; r++) if (m.recLevel.charCodeAt(r) === 100) { if (!nd) firstD = m.recText[r]; nd++; }
            if (nd) out = ' \u2192 ' + firstD + (nd > 1 ? ' (+' + (nd - 1) + ')' : '');
            html.push('<div class="qv-row' + (i === this.sel ? ' qv-sel' : '') + '" data-i="' + i + '" style="top:' +
                      (i * LIST_ROW) + 'px"><span class="qv-n">#' + (i + 1) + '</span>' + esc(m.evText[i]) +
                      '<span class="qv-out">' + esc(out) + '</span></div>');
        }
        var sp = this.el.spacer;
        sp.innerHTML = html.join('');
        sp.style.position = 'relative';
    };

    /* the detail panel: the event, its trace lines, the state after it */
    Viewer.prototype.showDetail = function () {
        var m = this.m, i = this.sel, el = this.el, h = [];
        if (!m.n) {
            el.detail.innerHTML = '<p class="qv-muted">No events: the stream has only parameters, or stops ' +
                'before its first event.</p>';
            return;
        }
        h.push('<div class="qv-input" data-qv-input>' + esc(m.evText[i]) + '</div>');
        h.push('<div class="qv-muted">event ' + (i + 1) + ' of ' + m.n + ', line ' + m.evLine[i] +
               ', virtual time ' + m.evTime[i] + 's</div>');
        h.push('<h2>trace' + (this.explain ? ' (explain level)' : '') + '</h2><div data-qv-trace>');
        var any = false;
        for (var r = m.recStart[i]; r < m.recStart[i + 1]; r++) {
            var lev = m.recLevel[r];
            if (lev !== 'd' && !this.explain) continue;
            var word = m.recText[r].split(' ')[0];
            h.push('<div class="qv-rec ' + lev + ' k-' + esc(word) + '">' + esc(m.recText[r]) + '</div>');
            if (m.moments[r])
                h.push('<div class="qv-moment" data-qv-moment="' + r + '"><span class="qv-muted">' +
                       esc(m.trans[m.moments[r].t].name) + ' job list and preemption stack at this line:</span><br>' +
                       stackSVG(m, m.moments[r].list) + '</div>');
            any = true;
        }
        if (!any) h.push('<div class="qv-muted">(no trace line)</div>');
        h.push('</div><h2>state after this event</h2><div class="qv-state" data-qv-state>');
        stateAt(m, i).forEach(function (t, ti) {
            h.push('<div><b>' + esc(t.transport) + '</b> <span class="qv-muted">' + t.inflight + ' in flight' +
                   (t.pool === null ? '' : ', recipient pool ' + t.pool) + '</span></div>');
            if (t.jobs.length) {
                var li = lastLE(m.trans[ti].listEv, i);
                if (li >= 0) h.push(stackSVG(m, m.trans[ti].lists[li]));
                h.push('<table><tr><th></th><th>job</th><th>level</th><th>counter</th><th>selected</th><th></th></tr>');
                t.jobs.forEach(function (j) {
                    h.push('<tr' + (j.current ? ' class="qv-cur"' : '') + '><td>' + (j.current ? '\u2605' : '') +
                           '</td><td><span class="qv-swatch" style="background:' + msgFill(j.msgId) + '"></span>' +
                           esc(j.msg) + '</td><td>' + j.level + '</td><td>' + j.counter + '</td><td>' + j.selected +
                           '/' + j.max + '</td><td>' + (j.blocker ? 'blocker ' : '') + (j.preempting ? 'preempting' : '') +
                           '</td></tr>');
                });
                h.push('</table>');
            } else {
                h.push('<div class="qv-muted">job list empty</div>');
            }
            if (t.dests.length) {
                h.push('<table><tr><th>destination</th><th>window</th><th>in flight</th><th>pending</th></tr>');
                t.dests.forEach(function (q) {
                    h.push('<tr><td>' + esc(q.name) + '</td>' + (q.dead ? '<td colspan="1"><b>dead</b></td>'
                           : '<td>' + q.window + '</td>') + '<td>' + q.busy + '</td><td>' + q.pending + '</td></tr>');
                });
                h.push('</table>');
            }
        });
        h.push('</div>');
        el.detail.innerHTML = h.join('');
    };

    Viewer.prototype.state = function (i) { return stateAt(this.m, i === undefined ? this.sel : i); };
    Viewer.prototype.records = function (i) {
        var m = this.m, out = [];
        if (i === undefined) i = this.sel;
        for (var r = m.recStart[i]; r < m.recStart[i + 1]; r++) out.push(m.recText[r]);
        return out;
    };
    Viewer.prototype.update = function (data) { this.setData(data, false); };
    Viewer.prototype.destroy = function () {
        (this.opts.keyTarget || global.document).removeEventListener('keydown', this.onKey);
    };

    global.QschedViewer = {
        create: function (root, data, opts) { return new Viewer(root, data, opts); },
        prepare: prepare,
        stateAt: stateAt,
        stackSVG: stackSVG
    };

    /* a page written by `qsched --format html`: start at once */
    var doc = global.document, dataEl = doc && doc.getElementById('qsched-data');
    var root = doc && doc.getElementById('qv-root');
    if (dataEl && root) {
        var perf = global.performance || { now: function () { return 0; } };
        var t0 = perf.now();
        var data = JSON.parse(dataEl.textContent);
        var t1 = perf.now();
        var v = new Viewer(root, data, {});
        v.timing = { scriptStart: t0, parse: t1 - t0, build: perf.now() - t1 };
        global.qschedViewer = v;
        var raf = global.requestAnimationFrame || function (f) { return setTimeout(f, 0); };
        raf(function () {
            raf(function () {
                v.ready = true;
                v.loadMs = global.performance ? global.performance.now() : 0;
                root.setAttribute('data-ready', '1');
            });
        });
    }
})(typeof window !== 'undefined' ? window : this);
