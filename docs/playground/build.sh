#!/bin/sh
# docs/playground/build.sh - assembles the playground page, one
# self-contained file: docs/playground/index.html with its slots filled by
# the viewer's and the playground's style and script, the lessons, and
# qsched.wasm in base64 (a page opened from file:// cannot fetch() a file
# beside it).  Called by `make playground` (docs/playground/playground.mk):
#   sh build.sh WASM OUT.html
set -eu
[ $# -eq 2 ] || { echo "usage: build.sh WASM OUT.html" >&2; exit 2; }
wasm=$1
out=$2
here=$(cd "$(dirname "$0")" && pwd)
viewer=$here/../../src/viewer
tmp=$out.tmp
attr() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }
while IFS= read -r line; do
    case $line in
    @@CSS@@) cat "$viewer/viewer.css" "$here/playground.css" ;;
    @@VIEWERJS@@) cat "$viewer/viewer.js" ;;
    @@PLAYJS@@) cat "$here/playground.js" ;;
    @@WASM@@) base64 -w 76 "$wasm" ;;
    @@LESSONS@@)
        for f in "$here"/lessons/[0-9]*.events; do
            id=$(basename "$f" .events | sed 's/^[0-9]*-//')
            title=$(sed -n '1s/^# lesson: *//p' "$f" | attr)
            [ -n "$title" ] || { echo "build.sh: $f has no '# lesson:' title" >&2; exit 2; }
            if grep -qi '</script' "$f"; then echo "build.sh: $f contains </script" >&2; exit 2; fi
            printf '<script type="text/plain" class="qsched-lesson" data-id="%s" data-title="%s">\n' "$id" "$title"
            cat "$f"
            printf '</script>\n'
        done ;;
    *) printf '%s\n' "$line" ;;
    esac
done < "$here/index.html" > "$tmp"
mv "$tmp" "$out"
