#!/bin/sh
# tests/sh/io-contract.sh - qsched's I/O and memory contract (issue 19,
# S-EV-1, S-EV-10; the exit codes of qsched(1)).
#
# Owns the checks that need a device, a memory limit, a huge input or raw
# bytes, which tests/errors (one exact first stderr line per stream file)
# cannot express:
#   - a write error on stdout (/dev/full, a closed stdout) is reported with
#     the system's reason and exits 4, for the replay and every sub-command;
#   - a read error is "FILE:LINE: reason" with strerror and exit 2: a
#     directory, a missing file, an unreadable file, a failed allocation
#     under `ulimit -v` (never a truncated trace with exit 0);
#   - the 1 MiB line limit bounds memory while reading: a 200 MB line (from
#     a pipe and from a file) is refused with a peak RSS far below the line;
#     /dev/zero under `ulimit -v 400000` ends with a message;
#   - input bytes outside printable ASCII are escaped (\xNN) in messages;
#   - with 2>&1 the trace lines come before the message that followed them
#     (errors and the postfix profile's warnings);
#   - --profile with an unknown name is a command-line error, not "line 0".
# Prints ok/FAIL lines.
set -u
Q=${QSCHED:-build/qsched}
case $Q in /*) ;; *) Q=$(pwd)/$Q ;; esac
t=$(mktemp -d)
trap 'chmod -R u+rwx "$t" 2>/dev/null; rm -rf "$t"' EXIT
ok() { echo "ok $1"; }
no() { echo "FAIL $1: $2"; }
# check NAME WANT-RC GOT-RC STDERR-FILE REGEX: exit status and message
check() {
    if [ "$3" -ne "$2" ]; then no "$1" "exit $3, want $2: $(head -1 "$4")"
    elif ! grep -qE -- "$5" "$4"; then no "$1" "stderr '$(head -1 "$4")', want /$5/"
    else ok "$1"; fi
}
printf 'arrive M1 smtp:a.example\nselect\n' >"$t/v.events"

# 1. write errors on stdout
if [ -w /dev/full ]; then
    "$Q" "$t/v.events" >/dev/full 2>"$t/e"
    check write-full-exit-4 4 $? "$t/e" '^qsched: cannot write to standard output: No space left on device$'
    "$Q" --stats "$t/v.events" >/dev/full 2>"$t/e"
    check write-full-stats 4 $? "$t/e" 'No space left on device'
    "$Q" -d >/dev/full 2>"$t/e"
    check write-full-defaults 4 $? "$t/e" 'No space left on device'
    "$Q" gen --seed 1 >/dev/full 2>"$t/e"
    check write-full-gen 4 $? "$t/e" 'No space left on device'
    "$Q" "$t/v.events" >"$t/trace"
    "$Q" verify "$t/v.events" "$t/trace" >/dev/full 2>"$t/e"
    check write-full-verify 4 $? "$t/e" 'No space left on device'
    # a trace larger than the output buffer: the error is seen while
    # running (not only at the final flush) and still exits 4
    "$Q" gen --seed 3 --size 3000 >"$t/big.events"
    "$Q" --explain "$t/big.events" >/dev/full 2>"$t/e"
    check write-full-long-trace 4 $? "$t/e" 'No space left on device'
    # ... and reading stops at the next line: a bad line at the end of the
    # stream is never read (exit 4, not the input error's 2), so a replay
    # into a full disk or a closed pipe does not go on computing a trace
    { cat "$t/big.events"; echo "bogus line"; } >"$t/big-bad.events"
    "$Q" --explain "$t/big-bad.events" >/dev/full 2>"$t/e"
    check write-full-stops-reading 4 $? "$t/e" 'No space left on device'
else
    no write-full "/dev/full is not writable here"
fi
"$Q" "$t/v.events" >&- 2>"$t/e"
check write-closed-stdout 4 $? "$t/e" '^qsched: cannot write to standard output: Bad file descriptor$'

# 2. read errors: FILE:LINE: reason, exit 2
mkdir "$t/dir"
"$Q" "$t/dir" >/dev/null 2>"$t/e"
check read-directory 2 $? "$t/e" "^$t/dir:1: cannot read: Is a directory\$"
"$Q" "$t/missing.events" >/dev/null 2>"$t/e"
check read-missing 2 $? "$t/e" "^$t/missing.events:1: cannot open: No such file or directory\$"
# unreadable: as root a mode-000 file is readable, so drop to nobody
cp "$t/v.events" "$t/unr.events"
chmod 000 "$t/unr.events"
if [ "$(id -u)" != 0 ]; then
    "$Q" "$t/unr.events" >/dev/null 2>"$t/e"
    check read-unreadable 2 $? "$t/e" ':1: cannot open: Permission denied$'
elif command -v setpriv >/dev/null 2>&1; then
    mkdir "$t/pub" && cp "$Q" "$t/pub/qsched" && chmod 755 "$t" "$t/pub"
    setpriv --reuid=65534 --regid=65534 --clear-groups \
        "$t/pub/qsched" "$t/unr.events" >/dev/null 2>"$t/e"
    check read-unreadable 2 $? "$t/e" ':1: cannot open: Permission denied$'
else
    no read-unreadable "running as root without setpriv: cannot make an unreadable file"
fi

# 3. memory: the line limit is enforced while reading
gen_line() { # LENGTH: "arrive M1 smtp:aaaa...\n" on stdout
    printf 'arrive M1 smtp:'
    head -c "$1" /dev/zero | tr '\000' a
    printf '\n'
}
if [ -x /usr/bin/time ]; then
    gen_line 200000000 | /usr/bin/time -f %M -o "$t/rss" "$Q" >/dev/null 2>"$t/e"
    rc=$?; rss=$(tail -1 "$t/rss")
    check long-line-pipe-refused 2 $rc "$t/e" '^-:1: line too long \(limit 1048576 bytes\)$'
    if [ "$rss" -lt 16384 ]; then ok "long-line-pipe-rss (${rss} kB)"; else
        no long-line-pipe-rss "peak RSS ${rss} kB for a 200 MB line (want < 16 MB)"; fi
    # a 200 MB file (sparse: NUL bytes, one line): refused as too long
    # before anything else, in bounded memory
    truncate -s 200000000 "$t/sparse.events"
    /usr/bin/time -f %M -o "$t/rss" "$Q" "$t/sparse.events" >/dev/null 2>"$t/e"
    rc=$?; rss=$(tail -1 "$t/rss")
    check long-line-file-refused 2 $rc "$t/e" 'sparse.events:1: line too long'
    if [ "$rss" -lt 16384 ]; then ok "long-line-file-rss (${rss} kB)"; else
        no long-line-file-rss "peak RSS ${rss} kB (want < 16 MB)"; fi
    rm -f "$t/sparse.events"
else
    no long-line-rss "/usr/bin/time missing (Debian package time)"
fi
# the lines before the long one were processed, the one after was not
{ cat "$t/v.events"; gen_line 3000000; echo select; } | "$Q" >"$t/o" 2>"$t/e"
rc=$?
printf 'deliver D1 M1 smtp:a.example 1\n' >"$t/want"
if [ $rc -eq 2 ] && cmp -s "$t/o" "$t/want" && grep -q '^-:3: line too long' "$t/e"; then
    ok long-line-valid-prefix
else
    no long-line-valid-prefix "exit $rc, $(head -1 "$t/e")"
fi
# shellcheck disable=SC3045 # dash and bash have ulimit -v
(ulimit -v 400000; timeout 60 "$Q" /dev/zero >/dev/null 2>"$t/e"); rc=$?
check dev-zero-under-ulimit 2 $rc "$t/e" '^/dev/zero:1: line too long'
# Under tight memory limits, every run either gives the whole trace or
# fails with a message: never exit 0 with a shorter trace.  Somewhere in
# the range the 1 MiB line buffer itself cannot be allocated, which must be
# reported with the system's reason.
{ printf '# %01000000d\n' 0; cat "$t/v.events"; } >"$t/mem.events"
"$Q" "$t/mem.events" >"$t/mem.want"
bad="" seen_enomem=0 v=2500
while [ $v -le 12000 ]; do
    # shellcheck disable=SC3045
    (ulimit -v $v; "$Q" "$t/mem.events" >"$t/mem.out" 2>"$t/mem.err"); rc=$?
    if [ $rc -eq 0 ]; then
        cmp -s "$t/mem.out" "$t/mem.want" || bad="$bad $v:exit-0-with-another-trace"
        [ -s "$t/mem.err" ] && bad="$bad $v:exit-0-with-a-message"
    elif [ $rc -ne 127 ] && [ ! -s "$t/mem.err" ]; then
        # 127: the dynamic loader itself could not start the program
        bad="$bad $v:exit-$rc-without-a-message"
    fi
    grep -q ':1: cannot read: Cannot allocate memory$' "$t/mem.err" && seen_enomem=1
    v=$((v + 250))
done
if [ -n "$bad" ]; then no memory-limit-contract "$bad"
elif [ $seen_enomem -eq 0 ]; then no memory-limit-enomem "no limit made the line buffer fail (want 'cannot read: Cannot allocate memory')"
else ok memory-limit-contract; fi

# 4. escapes: no raw control byte or non-ASCII byte of the input in a message
printf 'frob\033[2J x\n' >"$t/esc.events"
"$Q" "$t/esc.events" >/dev/null 2>"$t/e"; rc=$?
if [ $rc -eq 2 ] && ! grep -q "$(printf '\033')" "$t/e" &&
    grep -qF 'esc.events:1: unknown verb: frob\x1b[2J' "$t/e"; then
    ok escape-terminal-sequence
else
    no escape-terminal-sequence "exit $rc: $(od -c "$t/e" | head -2 | tr '\n' ' ')"
fi
printf 'arrive M\303\251 smtp:a\n' >"$t/utf.events"
"$Q" "$t/utf.events" >/dev/null 2>"$t/e"
if grep -qF 'bad message id (letters, digits, .-_+; at most 64): M\xc3\xa9' "$t/e" &&
    [ "$(LC_ALL=C tr -d '\040-\176\n' <"$t/e" | wc -c)" -eq 0 ]; then
    ok escape-non-ascii
else
    no escape-non-ascii "$(od -c "$t/e" | head -2 | tr '\n' ' ')"
fi
esc_name="$t/$(printf 'x\033]0;y\007').events"
cp "$t/esc.events" "$esc_name"
"$Q" "$esc_name" >/dev/null 2>"$t/e"
if [ "$(LC_ALL=C tr -d '\040-\176\n' <"$t/e" | wc -c)" -eq 0 ] &&
    grep -qF 'x\x1b]0;y\x07.events:1:' "$t/e"; then
    ok escape-file-name
else
    no escape-file-name "$(od -c "$t/e" | head -2 | tr '\n' ' ')"
fi
"$Q" --bogus"$(printf '\033')" >/dev/null 2>"$t/e"
if ! grep -q "$(printf '\033')" "$t/e"; then ok escape-option; else no escape-option "raw ESC"; fi

# 5. order with 2>&1: the trace written before a message comes first
printf 'arrive M1 smtp:a.example*2\nselect\nselect\nfrob\n' >"$t/ord.events"
"$Q" "$t/ord.events" >"$t/both" 2>&1
printf 'deliver D1 M1 smtp:a.example 2\nidle\n%s\n' \
    "$t/ord.events:4: unknown verb: frob" >"$t/want"
if cmp -s "$t/both" "$t/want"; then ok order-error-after-trace; else
    no order-error-after-trace "$(tr '\n' '|' <"$t/both")"; fi
{
    echo "profile postfix"
    echo "smtp_destination_concurrency_positive_feedback = 1/sqrt_concurrency"
    echo "arrive M1 local:a@h"
    echo "select"
    echo "arrive M2 smtp:b.example"
    echo "select"
} >"$t/warn.events"
"$Q" "$t/warn.events" >"$t/both" 2>&1
if [ "$(sed -n 1p "$t/both")" = "deliver D1 M1 local:a@h 1" ] &&
    sed -n 2p "$t/both" | grep -q '^qsched: warning: transport smtp: positive feedback' &&
    [ "$(sed -n 3p "$t/both")" = "deliver D2 M2 smtp:b.example 1" ]; then
    ok order-warning-after-trace
else
    no order-warning-after-trace "$(tr '\n' '|' <"$t/both")"
fi

# 6. --profile: a command-line error, said as such
"$Q" --profile foo "$t/v.events" >"$t/o" 2>"$t/e"
check profile-option-unknown 2 $? "$t/e" '^qsched: --profile: unknown profile "foo" \(want document or postfix\)$'
if grep -q ':0:' "$t/e" || [ -s "$t/o" ]; then no profile-option-not-line-0 "$(cat "$t/e")"; else
    ok profile-option-not-line-0; fi
"$Q" --profile >/dev/null 2>"$t/e"
check profile-option-missing-value 2 $? "$t/e" 'option needs a value: "--profile"'

# 7. the exit code 4 is documented
if grep -q '^\.B 4$' docs/qsched.1 && grep -q 'exit.*4' README.md; then ok exit-4-documented; else
    no exit-4-documented "docs/qsched.1 (EXIT STATUS) or README.md lacks it"; fi
