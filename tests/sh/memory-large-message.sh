#!/bin/sh
# tests/sh/memory-large-message.sh - a message larger than every limit is
# delivered completely, in batches, while small messages keep arriving, and
# the in-core bound is never exceeded (issue 5; S-MEM-2 .. S-MEM-9, S-INV-*).
#
# Owns: this one end-to-end check through the CLI with --check-invariants
# (the checker runs after every event and exits 3 on a broken invariant)
# and --stats (peak in-core recipients beside the document's bound).
#
# Parameters: qmgr_message_active_limit 3, qmgr_message_recipient_minimum
# 5, qmgr_message_recipient_limit 5, smtp_recipient_limit 50,
# smtp_extra_recipient_limit 20, refill limit 10, one entry per recipient,
# the default slot cost 5, loan 3, discount 50.
# BIG: 20000 recipients; a 3-recipient message arrives every 10 delivery
# slots (500 of them); every delivery finishes before the next select.
# Hand derivation:
#   bound = max(5 * 3 + 50 + 20, 5) = 85 (per transport and in total).
#   BIG reads max(5, 5 - 0) = 5 first; its job takes the pool of 50: BIG's
#   limit is 5 + 50 = 55; its first select finds room 50 >= 10 and reads
#   50: 55 in core, the peak's lower end.  BIG never gains slots after that
#   (it never preempts, and the small jobs, fully read and sponsored, have
#   nothing to give back), so BIG holds at most 55.  Small messages read all
#   3 recipients (first batch max(5, 5 - in core) = 5); at most 2 of them
#   are active beside BIG: peak <= 55 + 2 * 3 = 61 <= 85.
#   Every small one preempts BIG as soon as BIG's counter is positive
#   (counter/5 + 3 >= 3 * 50/100): 500 preemptions.
#   Deliveries: 20000 + 3 * 500 = 21500, all recipients delivered, 501
#   messages done, the rest waiting in the incoming FIFO in between.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
Q=${QSCHED:-$top/build/qsched}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok memory-large-message: $1"; }
bad() { echo "FAIL memory-large-message: $1"; fail=1; }

awk 'BEGIN {
    print "qmgr_message_active_limit = 3"
    print "qmgr_message_recipient_minimum = 5"
    print "qmgr_message_recipient_limit = 5"
    print "smtp_recipient_limit = 50"
    print "smtp_extra_recipient_limit = 20"
    print "smtp_recipient_refill_limit = 10"
    print "smtp_destination_recipient_limit = 1"
    print "arrive BIG smtp:big.example*20000"
    s = 0
    for (i = 1; i <= 21500; i++) {
        if (i % 10 == 0 && s < 500) { s++; print "arrive S" s " smtp:s" s ".example*3" }
        print "select"
        print "done D" i " ok"
    }
    print "select"
}' >"$tmp/large.events"

"$Q" --check-invariants --stats "$tmp/large.events" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ $rc -eq 0 ]; then ok "exit 0 with --check-invariants"; else
    bad "exit $rc: $(head -1 "$tmp/err")"; fi
stat() { sed -n "s/.*[ ]$1=\([0-9]*\).*/\1/p" "$tmp/out" | head -1; }
[ "$(stat recipients_delivered)" = 21500 ] && ok "all 21500 recipients delivered" || bad "delivered $(stat recipients_delivered), want 21500"
[ "$(stat recipients_deferred)" = 0 ] && ok "none deferred" || bad "deferred $(stat recipients_deferred)"
[ "$(stat messages_done)" = 501 ] && ok "all 501 messages left" || bad "messages done $(stat messages_done), want 501"
[ "$(stat preemptions)" = 500 ] && ok "500 preemptions" || bad "preemptions $(stat preemptions), want 500"
[ "$(stat idles)" = 1 ] && ok "no idle slot before the end" || bad "idles $(stat idles), want 1"
peak=$(stat peak_in_core)
bound=$(sed -n 's/^stats peak_in_core=[0-9]* bound=\([0-9]*\)$/\1/p' "$tmp/out")
[ "$bound" = 85 ] && ok "bound 85" || bad "bound $bound, want 85"
if [ -n "$peak" ] && [ "$peak" -ge 55 ] && [ "$peak" -le 61 ]; then
    ok "peak in core $peak within [55, 61] (<= 85)"; else bad "peak in core $peak, want 55..61"; fi
tline=$(grep '^stats transport=smtp ' "$tmp/out")
case "$tline" in
    *"peak_in_core=$peak bound=85") ok "per-transport peak and bound reported" ;;
    *) bad "per-transport line: $tline" ;;
esac
exit $fail
