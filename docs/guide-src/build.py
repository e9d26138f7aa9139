#!/usr/bin/env python3
"""docs/guide-src/build.py - builds docs/guide.md: runs every snippet with the real qsched and pastes
its output, so that the guide never shows a trace qsched does not print."""
import os, subprocess, sys, tempfile, textwrap
QSDIR = sys.argv[1]          # directory holding the qsched binary
OUT = sys.argv[2]
work = tempfile.mkdtemp(prefix='guide-')
env = dict(os.environ, PATH=QSDIR + ':' + os.environ['PATH'], LC_ALL='C')
parts = []
def md(text):
    parts.append(textwrap.dedent(text).strip('\n') + '\n')
def sh(snippet, show=True, lang='sh'):
    snippet = textwrap.dedent(snippet).strip('\n')
    p = subprocess.run(['bash', '-e', '-o', 'pipefail', '-c', snippet], cwd=work, env=env,
                       capture_output=True, text=True)
    if p.returncode != 0 and show != 'rc':
        sys.exit(f"snippet failed ({p.returncode}):\n{snippet}\n{p.stderr}")
    parts.append('```' + lang + '\n' + snippet + '\n```\n')
    if show:
        out = p.stdout + (p.stderr if show == 'rc' else '')
        parts.append('```\n' + out.rstrip('\n') + '\n```\n')
exec(open(os.path.join(os.path.dirname(__file__), 'content.py')).read())
open(OUT, 'w').write('\n'.join(parts))
# GUIDE_STREAMS=DIR keeps the streams the snippets wrote (tests/sh/teach-lessons.sh
# compares them with the playground's lessons, docs/playground/lessons/).
if os.environ.get('GUIDE_STREAMS'):
    import shutil
    for f in sorted(os.listdir(work)):
        if f.endswith('.events'):
            shutil.copy(os.path.join(work, f), os.environ['GUIDE_STREAMS'])
