#!/usr/bin/env python3
"""docs/guide-src/build.py - builds docs/guide.md: runs every snippet with the real qsched and pastes
its output, so that the guide never shows a trace qsched does not print."""
import os, subprocess, sys, tempfile, textwrap
QSDIR = sys.argv[1]          # directory holding the qsched binary
OUT = sys.argv[2]
work = tempfile.mkdtemp(prefix='guide-')
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
LESSONS = os.path.join(ROOT, 'docs', 'playground', 'lessons')
# snippets run as if from the top of the source tree for docs/...
os.symlink(os.path.join(ROOT, 'docs'), os.path.join(work, 'docs'))
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
def lesson(lid, title):
    """The playground lesson of a section (docs/playground/lessons/NN-lid.events)."""
    files = [f for f in os.listdir(LESSONS) if f.endswith('-' + lid + '.events') and f[:2].isdigit()]
    if len(files) != 1:
        sys.exit(f"lesson {lid}: no docs/playground/lessons/NN-{lid}.events")
    md(f"**Playground:** lesson [{title}](../build/playground/index.html#lesson={lid}) "
       f"(stream `docs/playground/lessons/{files[0]}`).")
exec(open(os.path.join(os.path.dirname(__file__), 'content.py')).read())
open(OUT, 'w').write('\n'.join(parts))
# GUIDE_STREAMS=DIR keeps the streams the snippets wrote (tests/sh/teach-lessons.sh
# compares them with the playground's lessons, docs/playground/lessons/).
if os.environ.get('GUIDE_STREAMS'):
    import shutil
    for f in sorted(os.listdir(work)):
        if f.endswith('.events'):
            shutil.copy(os.path.join(work, f), os.environ['GUIDE_STREAMS'])
