/*
 * playground.js - the qsched playground: a learner edits an event stream
 * and sees the trace and the timeline follow as they type.
 *
 * Owns: running the qsched command itself, compiled to WebAssembly
 * (`make playground`: the same C sources as build/qsched, clang
 * --target=wasm32-wasi), inside the page, through a minimal WASI preview1
 * layer: arguments, stdin from the editor, stdout and stderr captured, no
 * files, no clock, no network.  Every run is `qsched --format view-json -`
 * on the editor's text; its output feeds the timeline viewer
 * (src/viewer/viewer.js) and the trace pane (the explain-level lines of the
 * same run: the bytes `qsched --explain` prints).  tests/browser checks the
 * wasm build's traces against the native ones on every golden stream.
 *
 * Lessons: docs/playground/lessons/*.events, embedded as
 * <script type="text/plain" class="qsched-lesson">; URL #lesson=ID opens one
 * (docs/guide.md links each section to its lesson).
 */
(function () {
    'use strict';

    var ERRNO = { SUCCESS: 0, BADF: 8, INVAL: 28, NOENT: 44, NOSYS: 52, SPIPE: 70, NOTCAPABLE: 76 };

    function WasiExit(code) { this.code = code; }

    /* The WASI preview1 functions qsched.wasm imports (and stubs for any
     * other: ENOSYS). */
    function wasiImports(module, args, stdin) {
        var enc = new TextEncoder();
        var argBytes = args.map(function (a) { return enc.encode(a + '\0'); });
        var io = { memory: null, out: { 1: [], 2: [] }, inPos: 0 };
        function view() { return new DataView(io.memory.buffer); }
        function bytes() { return new Uint8Array(io.memory.buffer); }
        var f = {
            args_sizes_get: function (argcPtr, sizePtr) {
                var v = view();
                v.setUint32(argcPtr, argBytes.length, true);
                v.setUint32(sizePtr, argBytes.reduce(function (s, b) { return s + b.length; }, 0), true);
                return 0;
            },
            args_get: function (argvPtr, bufPtr) {
                var v = view(), b = bytes();
                argBytes.forEach(function (a, i) {
                    v.setUint32(argvPtr + 4 * i, bufPtr, true);
                    b.set(a, bufPtr);
                    bufPtr += a.length;
                });
                return 0;
            },
            environ_sizes_get: function (cPtr, sPtr) {
                var v = view();
                v.setUint32(cPtr, 0, true);
                v.setUint32(sPtr, 0, true);
                return 0;
            },
            environ_get: function () { return 0; },
            fd_write: function (fd, iovs, n, nwPtr) {
                if (fd !== 1 && fd !== 2) return ERRNO.BADF;
                var v = view(), total = 0;
                for (var i = 0; i < n; i++) {
                    var p = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
                    io.out[fd].push(bytes().slice(p, p + len));
                    total += len;
                }
                v.setUint32(nwPtr, total, true);
                return 0;
            },
            fd_read: function (fd, iovs, n, nrPtr) {
                if (fd !== 0) return ERRNO.BADF;
                var v = view(), total = 0;
                for (var i = 0; i < n; i++) {
                    var p = v.getUint32(iovs + 8 * i, true), len = v.getUint32(iovs + 8 * i + 4, true);
                    var chunk = stdin.subarray(io.inPos, io.inPos + len);
                    bytes().set(chunk, p);
                    io.inPos += chunk.length;
                    total += chunk.length;
                    if (chunk.length < len) break;
                }
                v.setUint32(nrPtr, total, true);
                return 0;
            },
            fd_close: function () { return 0; },
            fd_seek: function () { return ERRNO.SPIPE; },
            fd_fdstat_get: function (fd, ptr) {
                if (fd > 2) return ERRNO.BADF;
                var v = view();
                v.setUint8(ptr, 2);              /* character device */
                v.setUint16(ptr + 2, 0, true);
                v.setBigUint64(ptr + 8, 0xffffffffn, true);
                v.setBigUint64(ptr + 16, 0xffffffffn, true);
                return 0;
            },
            fd_fdstat_set_flags: function () { return 0; },
            fd_prestat_get: function () { return ERRNO.BADF; },   /* no preopened directory */
            fd_prestat_dir_name: function () { return ERRNO.BADF; },
            path_open: function () { return ERRNO.NOTCAPABLE; },
            proc_exit: function (code) { throw new WasiExit(code); }
        };
        var imports = {};
        WebAssembly.Module.imports(module).forEach(function (imp) {
            if (imp.kind !== 'function') return;
            var ns = imports[imp.module] || (imports[imp.module] = {});
            ns[imp.name] = f[imp.name] || function () { return ERRNO.NOSYS; };
        });
        return { imports: imports, io: io };
    }

    function concat(chunks) {
        var n = chunks.reduce(function (s, c) { return s + c.length; }, 0), out = new Uint8Array(n), p = 0;
        chunks.forEach(function (c) { out.set(c, p); p += c.length; });
        return new TextDecoder().decode(out);
    }

    /* qsched ARGS < stdinText, in WebAssembly: {code, stdout, stderr} */
    function runQsched(module, args, stdinText) {
        var w = wasiImports(module, ['qsched'].concat(args), new TextEncoder().encode(stdinText));
        return WebAssembly.instantiate(module, w.imports).then(function (inst) {
            var code = 0;
            w.io.memory = inst.exports.memory;
            try {
                inst.exports._start();
            } catch (e) {
                if (e instanceof WasiExit) code = e.code;
                else throw e;
            }
            return { code: code, stdout: concat(w.io.out[1]), stderr: concat(w.io.out[2]) };
        });
    }

    function esc(s) {
        return String(s).replace(/[&<>]/g, function (c) { return c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'; });
    }

    var pg = window.playground = { ready: false, runs: 0, lastData: null, lastResult: null, run: null };
    var editor = document.getElementById('pg-editor');
    var tracePane = document.getElementById('pg-trace');
    var status = document.getElementById('pg-status');
    var countEl = document.getElementById('pg-count');
    var explainBox = document.getElementById('pg-explain');
    var picker = document.getElementById('pg-lesson');
    var lessons = Array.prototype.map.call(document.querySelectorAll('script.qsched-lesson'), function (e) {
        return { id: e.getAttribute('data-id'), title: e.getAttribute('data-title'),
                 text: e.textContent.replace(/^\n/, '') };
    });
    pg.lessons = lessons;
    lessons.forEach(function (l) {
        var o = document.createElement('option');
        o.value = l.id;
        o.textContent = l.title;
        picker.appendChild(o);
    });
    var viewer = null, module = null, seq = 0, timer = null, running = false, again = false;

    var TRACE_MAX = 20000; /* lines shown in the trace pane */

    function showTrace() {
        var d = pg.lastData, r = pg.lastResult;
        if (!d) return;
        var recs = d.recText ? d.recText.split('\n') : [], lev = d.recLevel || '', html = [], shown = 0;
        var explain = explainBox.checked, ev = 0, left = d.evRecs && d.evRecs.length ? d.evRecs[0] : 0;
        for (var i = 0; i < lev.length; i++) {
            while (left === 0 && ev + 1 < d.evRecs.length) left = d.evRecs[++ev];
            left--;
            if (lev[i] !== 'd' && !explain) continue;
            if (shown === TRACE_MAX) { html.push('<span class="e">(more lines: see the timeline)</span>'); break; }
            html.push('<span data-ev="' + ev + '"' + (lev[i] === 'd' ? '' : ' class="e"') + '>' + esc(recs[i]) + '</span>');
            shown++;
        }
        if (r && r.stderr) html.push('<span class="err">' + esc(r.stderr.replace(/^-:/gm, 'line ').trim()) + '</span>');
        tracePane.innerHTML = html.join('\n');
        countEl.textContent = shown + ' line' + (shown === 1 ? '' : 's') + ', ' + d.events + ' events';
        markTrace(viewer ? viewer.sel : 0, false);
    }

    /* the trace lines of the selected event, highlighted and in view */
    function markTrace(ev, scroll) {
        Array.prototype.forEach.call(tracePane.querySelectorAll('.pg-cur'), function (e) {
            e.classList.remove('pg-cur');
        });
        var lines = tracePane.querySelectorAll('[data-ev="' + ev + '"]');
        Array.prototype.forEach.call(lines, function (e) { e.classList.add('pg-cur'); });
        if (scroll && lines.length) {
            var top = lines[0].offsetTop - tracePane.offsetTop;
            if (top < tracePane.scrollTop || top > tracePane.scrollTop + tracePane.clientHeight - 20)
                tracePane.scrollTop = Math.max(0, top - 40);
        }
    }
    tracePane.addEventListener('click', function (e) {
        var t = e.target;
        if (t && t.getAttribute && t.getAttribute('data-ev') !== null && viewer)
            viewer.select(+t.getAttribute('data-ev'), true);
    });

    function run() {
        if (!module) return Promise.resolve();
        if (running) { again = true; return pg.pending; }
        running = true;
        var text = editor.value, my = ++seq;
        pg.pending = runQsched(module, ['--format', 'view-json', '-'], text).then(function (r) {
            running = false;
            pg.runs++;
            pg.lastResult = r;
            var data;
            try {
                data = JSON.parse(r.stdout);
            } catch (e) {
                status.textContent = 'qsched printed no data (exit ' + r.code + '): ' + r.stderr;
                status.className = 'pg-status pg-bad';
                return;
            }
            pg.lastData = data;
            if (!viewer) {
                viewer = pg.viewer = window.QschedViewer.create(document.getElementById('pg-viewer'), data,
                                                                { embedded: true,
                                                                  onSelect: function (i) { markTrace(i, true); } });
            } else {
                viewer.update(data);
            }
            if (r.code === 0) {
                status.textContent = 'ok: ' + data.events + ' events, ' + (data.stats ? data.stats.deliveries : 0) +
                    ' deliveries';
                status.className = 'pg-status pg-good';
            } else {
                status.textContent = (r.stderr.split('\n')[0] || 'exit ' + r.code).replace(/^-:/, 'line ');
                status.className = 'pg-status pg-bad';
            }
            showTrace();
            pg.ready = true;
            if (again) { again = false; return run(); }
            return my;
        }, function (e) {
            running = false;
            status.textContent = 'the WebAssembly core failed: ' + e;
            status.className = 'pg-status pg-bad';
        });
        return pg.pending;
    }
    pg.run = run;

    function loadLesson(id, push) {
        var l = lessons.filter(function (x) { return x.id === id; })[0] || lessons[0];
        if (!l) return Promise.resolve();
        picker.value = l.id;
        editor.value = l.text;
        if (push !== false && window.history && window.history.replaceState)
            window.history.replaceState(null, '', '#lesson=' + l.id);
        return run().then(function () { if (viewer) { viewer.fit(); viewer.select(0, true); } });
    }
    pg.loadLesson = loadLesson;
    pg.setText = function (t) { editor.value = t; return run(); };

    editor.addEventListener('input', function () {
        clearTimeout(timer);
        timer = setTimeout(run, 120);
    });
    explainBox.addEventListener('change', showTrace);
    picker.addEventListener('change', function () { loadLesson(picker.value); });
    document.getElementById('pg-reset').addEventListener('click', function () { loadLesson(picker.value); });
    window.addEventListener('hashchange', function () {
        var m = /lesson=([A-Za-z0-9_.-]+)/.exec(window.location.hash);
        if (m && m[1] !== picker.value) loadLesson(m[1], false);
    });

    var b64 = document.getElementById('qsched-wasm').textContent.replace(/\s+/g, '');
    var raw = atob(b64), wasm = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) wasm[i] = raw.charCodeAt(i);
    WebAssembly.compile(wasm).then(function (m) {
        module = pg.module = m;
        pg.runQsched = function (args, text) { return runQsched(module, args, text); };
        var h = /lesson=([A-Za-z0-9_.-]+)/.exec(window.location.hash);
        return loadLesson(h ? h[1] : (lessons[0] && lessons[0].id), false);
    }).catch(function (e) {
        status.textContent = 'cannot start the WebAssembly core: ' + e;
        status.className = 'pg-status pg-bad';
    });
})();
