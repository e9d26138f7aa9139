#!/bin/sh
# tests/sh/cli.sh - command-line contract of qsched (issue 2, S-EV-*).
#
# Owns: the checks that are easier in shell than as golden files: stdin
# input, -d, --help/--version, limits that need generated input (line
# length, NUL bytes), determinism, JSON Lines validity, --stats,
# --check-invariants, and `make install`.  Prints ok/FAIL lines.
set -u
Q=${QSCHED:-build/qsched}
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
ok() { echo "ok $1"; }
no() { echo "FAIL $1: $2"; }
expect() { # name condition-command...
    n=$1; shift
    if "$@"; then ok "$n"; else no "$n" "$*"; fi
}

# -d lists every parameter with the reference defaults (postconf -d)
$Q -d >"$t/d"
expect defaults-slot-cost grep -qx 'default_delivery_slot_cost = 5' "$t/d"
expect defaults-discount grep -qx 'default_delivery_slot_discount = 50' "$t/d"
expect defaults-loan grep -qx 'default_delivery_slot_loan = 3' "$t/d"
expect defaults-min-slots grep -qx 'default_minimum_delivery_slots = 3' "$t/d"
expect defaults-conc-limit grep -qx 'default_destination_concurrency_limit = 20' "$t/d"
expect defaults-rcpt-limit grep -qx 'default_destination_recipient_limit = 50' "$t/d"
expect defaults-init grep -qx 'initial_destination_concurrency = 5' "$t/d"
expect defaults-cohort grep -qx 'default_destination_concurrency_failed_cohort_limit = 1' "$t/d"
expect defaults-backoff grep -qx 'minimal_backoff_time = 300s' "$t/d"
expect defaults-active grep -qx 'qmgr_message_active_limit = 20000' "$t/d"
expect defaults-rcpt-minimum grep -qx 'qmgr_message_recipient_minimum = 10' "$t/d"
expect defaults-refill-delay grep -qx 'default_recipient_refill_delay = 5s' "$t/d"

expect help sh -c "$Q --help | grep -q '^usage: qsched'"
expect version sh -c "$Q --version | grep -q '^qsched [0-9]'"
$Q --bogus >/dev/null 2>&1; expect unknown-option test $? -eq 2
$Q /nonexistent/file >/dev/null 2>&1; expect missing-file test $? -eq 2

# stdin and "-" read the stream; output equals the file form
printf 'arrive M1 smtp:a.example*3\nselect\nselect\n' >"$t/s.events"
$Q "$t/s.events" >"$t/f.out"
$Q <"$t/s.events" >"$t/i.out"
$Q - <"$t/s.events" >"$t/dash.out"
expect stdin-equals-file cmp -s "$t/f.out" "$t/i.out"
expect dash-equals-file cmp -s "$t/f.out" "$t/dash.out"
# three recipients to one destination batch into one entry (limit 50):
# one deliver, then idle.
printf 'deliver D1 M1 smtp:a.example 3\nidle\n' >"$t/want"
expect one-entry-then-idle cmp -s "$t/f.out" "$t/want"

# line length limit (S-EV-1): 1048576 bytes accepted, one more refused
python3 -c "
import sys
pad = 'x' * (1048576 - len('# '))
open(sys.argv[1], 'w').write('# ' + pad + '\n')
open(sys.argv[2], 'w').write('# ' + pad + 'y\n')" "$t/ok.events" "$t/long.events"
$Q "$t/ok.events" >/dev/null 2>&1; expect line-at-limit test $? -eq 0
$Q "$t/long.events" >/dev/null 2>"$t/long.err"; rc=$?
expect line-over-limit-exit test $rc -eq 2
expect line-over-limit-msg grep -q ':1: line too long (limit 1048576 bytes)' "$t/long.err"

# NUL byte
printf 'arrive M1 smtp:a\000b\n' >"$t/nul.events"
$Q "$t/nul.events" >/dev/null 2>"$t/nul.err"; rc=$?
expect nul-exit test $rc -eq 2
expect nul-msg grep -q ':1: NUL byte in line' "$t/nul.err"

# determinism: the same stream twice gives byte-identical output, at every
# level and format
{
    echo "default_delivery_slot_cost = 2"
    echo "default_destination_concurrency_limit = 2"
    printf 'arrive M1'; i=1; while [ $i -le 30 ]; do printf ' smtp:d%d.example' $((i % 7)); i=$((i + 1)); done; echo
    echo "arrive M2 smtp:b.example*2 local:alice@host local:bob@host"
    echo "at 3"; echo "arrive M3 smtp:c.example*4"
    i=1; while [ $i -le 11 ]; do echo select; echo "done D$i ok"; i=$((i + 1)); done
    echo select; echo select
} >"$t/det.events"
for opt in "" "--explain" "--format jsonl" "--explain --format jsonl --stats"; do
    # shellcheck disable=SC2086
    $Q $opt "$t/det.events" >"$t/a.out" 2>&1
    # shellcheck disable=SC2086
    $Q $opt "$t/det.events" >"$t/b.out" 2>&1
    expect "deterministic[$opt]" cmp -s "$t/a.out" "$t/b.out"
done

# JSON Lines: every line parses and has time and event keys
$Q --explain --format jsonl --stats "$t/det.events" >"$t/j.out"
expect jsonl-valid python3 -c "
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    assert 'event' in o, line
    assert o['event'] == 'stats' or 'time' in o, line
" "$t/j.out"
# the default-level text and JSON agree on the deliveries
$Q "$t/det.events" | awk '$1=="deliver"{print $2, $3, $4, $5}' >"$t/td"
python3 -c "
import json, sys
for line in open(sys.argv[1]):
    o = json.loads(line)
    if o['event'] == 'deliver':
        print('D%d %s %s:%s %d' % (o['handle'], o['msg'], o['transport'], o['dest'], o['nrcpt']))
" "$t/j.out" >"$t/jd"
expect jsonl-text-agree cmp -s "$t/td" "$t/jd"

# --stats: 11 selects, each completed ok, then 2 idle selects; M1 has 30 recipients on 7
# destinations -> 7 entries (30 recipients <= 50 per entry), M2 3 entries
# (smtp:b 2 recipients in one entry, local alice and bob one each), M3 one
# entry of 4: 11 deliveries, 30 + 4 + 4 = 38 recipients delivered.
$Q --stats "$t/det.events" >"$t/st.out"
expect stats-deliveries grep -q '^stats deliveries=11 ' "$t/st.out"
expect stats-recipients grep -q '^stats recipients_delivered=38 recipients_deferred=0 messages_done=3 ' "$t/st.out"
expect stats-transport grep -q '^stats transport=smtp deliveries=9 ' "$t/st.out"

# --check-invariants passes on a valid stream
$Q --check-invariants "$t/det.events" >/dev/null 2>&1; expect invariants-hold test $? -eq 0

# every verb, one example each (spec/events.md), in both profiles (the two
# round-robin selects reach both transports whichever one the profile's
# round robin starts with: S-PRE-14, S-PFX-13)
cat >"$t/verbs.events" <<'EOF'
# parameters, including a per-transport override
default_delivery_slot_cost = 2
smtp_destination_concurrency_limit = 3
minimal_backoff_time = 10s
arrive M1 smtp:a.example*2 smtp:b.example local:alice@host
select
select smtp
select
done D1 ok
done D2 fail
done D3 defer
at 10
select
EOF
for p in document postfix; do
    $Q --profile $p "$t/verbs.events" >"$t/v.out" 2>"$t/v.err"; rc=$?
    expect "verbs-$p-exit" test $rc -eq 0
    expect "verbs-$p-three-deliveries" test "$(grep -c '^deliver' "$t/v.out")" -eq 3
done

# make install puts the CLI, library, header and man pages in DESTDIR
if make -s install PREFIX=/usr DESTDIR="$t/root" >/dev/null 2>&1; then
    for f in usr/bin/qsched usr/lib/libqsched.a usr/include/qsched.h \
             usr/share/man/man1/qsched.1 usr/share/man/man3/qsched.3; do
        expect "install-$(basename $f)" test -f "$t/root/$f"
    done
else
    no install "make install failed"
fi

# the incoming queue is bounded (S-EV-1): with an active limit of 1, the
# 1,000,002nd message is the 1,000,001st waiting one and is refused
python3 -c "
print('qmgr_message_active_limit = 1')
for i in range(1000002):
    print('arrive M%d smtp:a.example' % i)" >"$t/wait.events"
$Q "$t/wait.events" >/dev/null 2>"$t/wait.err"; rc=$?
expect waiting-limit-exit test $rc -eq 2
expect waiting-limit-msg grep -q ':1000003: too many messages waiting for the active queue (limit 1000000)' "$t/wait.err"
