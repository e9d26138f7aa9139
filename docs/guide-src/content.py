# docs/guide-src/content.py - the text and snippets of docs/guide.md, run by
# build.py (md() adds prose, sh() runs a snippet and pastes its real output;
# lesson() links a section to its playground lesson, docs/playground/lessons/).
md("""
<!-- docs/guide.md - teaching material for qsched: how the Postfix queue
     manager's two scheduling algorithms work, shown with small event streams
     and the traces qsched prints for them.  Every trace below was produced
     by running the snippet above it; the spec (spec/) is the normative
     reference, this guide is the walk-through. -->

# A guided tour of the Postfix scheduler with qsched

Postfix's queue manager decides which delivery to start next, and it does
that with two cooperating algorithms, both described in SCHEDULER_README
("the document"):

* the **concurrency scheduler** decides *how many* deliveries may run in
  parallel to one destination, and when a destination is so broken that
  deliveries to it should stop for a while;
* the **preemptive job scheduler** decides *which message* gets the next
  delivery slot, so that small messages slip past a mailing list without
  slowing the list down by more than a known factor.

qsched runs both in virtual time from a small text stream, and prints one
line per decision. This guide walks through each idea with a stream you
can paste, and shows the trace that qsched really prints for it. For the
exact rules see [spec/](../spec/README.md). Rule ids such as S-CON-4 point
into the spec.

Everything below assumes `qsched` is on your `PATH` (`make`, then
`export PATH=$PWD/build:$PATH`) and runs from the top of the source tree.
Every section has a **playground lesson**: the same stream in a page where
you can edit it and watch the trace and the timeline change as you type
(`make playground`, then open `build/playground/index.html`; it works
offline, section 10).

## 1. First contact

A stream describes what happens. Messages arrive with recipients. The
delivery machinery asks for work with `select`, and reports back with
`done`. qsched answers each `select` and reports what changed.
""")

sh("""
cat > hello.events <<'EOF'
# one message: three recipients at example.com, one at example.org
arrive M1 smtp:example.com*3 smtp:example.org
select
select
select
done D1 ok
done D2 ok
EOF
qsched hello.events
""")

md("""
The three example.com recipients travel together in one *entry* (a batch
for one destination; the default `default_destination_recipient_limit` is
50). The first `select` starts delivery D1 with those 3 recipients, the
second starts D2 with the example.org recipient, and the third finds nothing
left to do: `idle`. Handles are numbered in the order deliveries start. That
is how `done D1 ok` can name a delivery without knowing what it contains,
and why the same stream can be replayed against another scheduler
(`qsched verify`).

`--explain` adds the reasons, the message life cycle and the bookkeeping:
""")

sh("qsched --explain hello.events")

md("""
`activate`/`read` show the message entering the active queue and its
recipients being read. `retire` shows that the job has nothing left to
select. `leave` shows the message leaving when all its recipients are dealt
with. The `rcptpool` lines are recipient-pool bookkeeping (recipient
slots, not the delivery slots of Part II), covered in section 9. The
`safety` lines are the concurrency scheduler thinking aloud, covered in
section 4. [spec/trace.md](../spec/trace.md) describes every line.
""")

lesson("first-contact", "First contact")

md("""
# Part I: the concurrency scheduler

## 2. The window and the old ±1 scheduler

Each destination has a *window*: how many deliveries to it may be in flight
at once (the document calls it the destination's "concurrency"). It starts
at `initial_destination_concurrency` (5). Every finished delivery is
*feedback*: positive if it did not fail with a connection or handshake
problem (`ok`, `defer`), negative if it did (`fail`).

The oldest Postfix scheduler added 1 to the window after every success and
took 1 away after every failure. With the default settings (positive and
negative feedback 1) the 2.5 scheduler does exactly that. The document warns
that this grows exponentially: "with the default initial concurrency of 5,
concurrency would proceed over time as (5-10-20)". Here it is. We keep the
pipe full: after each `done`, one `select` refills the freed slot and one
tries the slot the window may have gained. `at` lines number the successes,
so the JSON output shows which success moved the window.
""")

sh("""
cat > old.events <<'EOF'
# The old +/-1 scheduler is the default: feedback 1 up and down,
# failed-cohort limit 1.  Entries of 2 recipients, so M1 has 40 entries.
default_destination_recipient_limit = 2
arrive M1 smtp:example.com*80
EOF
printf 'select\\n%.0s' 1 2 3 4 5 >> old.events
for i in $(seq 15); do printf 'at %d\\ndone D%d ok\\nselect\\nselect\\n' $i $i; done >> old.events
qsched --format jsonl old.events | grep '"window"' | cut -d, -f1,5,6
""")

md("""
The first *pseudo-cohort* (as many deliveries as the window, 5) takes the
window from 5 to 10. The next one (10 deliveries) takes it to 20, the
destination concurrency limit (S-CON-5 clamps it there). So the window
doubles with every pseudo-cohort.

`--explain` shows each step as the pseudocode computes it: the feedback
value g, the `success` counter against its hysteresis of 1, and the clamp:
""")

sh("qsched --explain old.events | grep -E '^(success|window) ' | sed -n '1,2p;29,30p'")

md("""
Each `success` line reads: the feedback form and its value (here the
constant 1), `success=` the counter before + g = after, the test of "while
(success >= 1)", and what happened to the window. Before each of them a
`safety` line shows that the rule of section 4 let the feedback through. A
step beyond 20, `default_destination_concurrency_limit`, would be clamped
back to 20 ("Be prepared for overshoot"), and the `success` line would say
`clamped to limit 20`.
""")

lesson("old-scheduler", "The window and the old ±1 scheduler")

md("""
## 3. Less-than-1 feedback: linear growth

The 2.5 scheduler makes the feedback a fraction. With `g(N) = 1/N` (N = the
window) a whole pseudo-cohort of N successes is needed for one step:
"concurrency increases by 1 after an entire pseudo-cohort N of positive
feedback reports; this gives us linear growth in time". The fractions pile
up in a variable `success`, and the window steps up each time it reaches 1
(S-CON-4).
""")

sh("""
cat > lin.events <<'EOF'
# g(N) = 1/N: one step up per pseudo-cohort of N successes
default_destination_concurrency_positive_feedback = 1/concurrency
default_destination_recipient_limit = 2
arrive M1 smtp:example.com*80
EOF
printf 'select\\n%.0s' 1 2 3 4 5 >> lin.events
for i in $(seq 18); do printf 'at %d\\ndone D%d ok\\nselect\\nselect\\n' $i $i; done >> lin.events
qsched --format jsonl lin.events | grep '"window"' | cut -d, -f1,5,6
""")

md("""
5 successes at window 5 give one step. The next step should come after 6
more successes at window 6, that is at success 11, but it comes at 12. This
is binary arithmetic, not a bug: six additions of 1/6 give
0.9999999999999999 in a `double`, and the pseudocode's test is `while
(success >= 1)`. `--explain` shows the sum, digit for digit:
""")

sh("qsched --explain lin.events | grep -E '^success .*/6=' | cut -d' ' -f4-")

md("""
Postfix's code guards against this: it steps when `success + g/2 >= 1`
(S-PFX-2). The `postfix` profile does what Postfix does:
""")

sh("qsched --profile postfix --format jsonl lin.events | grep '\"window\"' | cut -d, -f1,5,6")

lesson("linear-growth", "Less-than-1 feedback: linear growth")

md("""
Why less-than-1 feedback at all? The document measured it against a server
that accepts 5 sessions and answers a 6th with "421" at once: the old ±1
feedback defers 1/2 of the mail, 1/sqrt(N) about 1/4, and 1/N about 1/6,
"1/(1+roundup(1/feedback))". A playground lesson replays that experiment
with three transports, one per feedback style (generated against qsched by
`docs/playground/lessons/gen-421.sh`, with the server played by the
script). The share of failed deliveries per transport:
""")

sh("""
qsched docs/playground/lessons/10-feedback-421.events > 421.trace
awk 'NR == FNR { if ($1 == "deliver") { split($4, d, ":"); t[$2] = d[1]; n[d[1]]++ } next }
     $1 == "done" && $3 == "fail" { f[t[$2]]++ }
     END { split("fixed sqrt inv", o, " ")
           for (i = 1; i <= 3; i++) printf "%s: %d of %d deliveries failed\\n", o[i], f[o[i]], n[o[i]] }' \\
  421.trace docs/playground/lessons/10-feedback-421.events
""")

md("""
Close to the theory's 1/2, 1/4 and 1/6 (the run is short). In the timeline
the windows of `sqrt` and `inv` climb back slowly after each 421, while
`fixed` bounces 5-6-5-6: "positive feedback will increment the concurrency
by 1 at the end of a sequence of events of length 1/feedback, while negative
feedback will decrement concurrency by 1 at the beginning of such a
sequence".
""")

lesson("feedback-421", "Feedback styles against a 421 limiter")

md("""
## 4. The safety rule

Positive feedback is applied only while `window < busy + initial
concurrency` (S-CON-3). Otherwise a window could keep growing while nothing
tests it, and "negative feedback effect could be delayed". So a destination
that gets one delivery at a time never grows:
""")

sh("""
cat > safety.events <<'EOF'
# one delivery at a time: nothing else is in flight when it succeeds
arrive M1 smtp:example.com
select
done D1 ok
EOF
qsched safety.events
echo '--- postfix profile:'
qsched --profile postfix safety.events
""")

md("""
The two profiles differ here because of *when* the finishing delivery stops
counting as busy. In the `document` profile a completed delivery is no
longer busy, so the test is 5 < 0 + 5, which is false. Postfix applies
feedback while the delivery is still on its busy list, so the test is
5 < 1 + 5, which is true (S-PFX-6). [spec/profiles.md](../spec/profiles.md)
lists every such difference beside the document's wording. The `safety`
line says exactly that, with the busy count each profile uses (Postfix also
stops at the destination concurrency limit, S-PFX-3, so it shows the limit):
""")

sh("""
qsched --explain safety.events | grep -E '^(safety|success) '
echo '--- postfix profile:'
qsched --explain --profile postfix safety.events | grep -E '^(safety|success) '
""")

lesson("safety", "The safety rule")

md("""
## 5. Negative feedback, dead destinations and revival

Negative feedback is "reversed": the window drops at the *start* of a cycle
of 1/f failures, not at the end, "otherwise, a correction for overload would
be made too late" (S-CON-7). Separately, each failure counts as 1/window of
a *failed pseudo-cohort*. When more cohorts have failed than
`default_destination_concurrency_failed_cohort_limit` (1) allows, the
destination is declared **dead** (S-CON-8). Deliveries to it stop, its
pending entries are deferred, and new recipients for it are deferred on
arrival (S-CON-9). After `minimal_backoff_time` (300 s) it is revived and
starts over (S-CON-10).

Five deliveries are in flight and four of them fail:
""")

sh("""
cat > dead.events <<'EOF'
# defaults: feedback 1 up and down, failed-cohort limit 1, backoff 300s
default_destination_recipient_limit = 2
arrive M1 smtp:example.com*20
select
select
select
select
select
done D1 fail
done D2 fail
done D3 fail
done D4 fail
arrive M2 smtp:example.com
done D5 ok
at 299
arrive M3 smtp:example.com
at 300
arrive M4 smtp:example.com
select
EOF
qsched dead.events
""")

md("""
`--explain` tells the story line by line: for each failure the failed
pseudo-cohorts against the limit (`cohort`), then "After failure" with its
reversed hysteresis (`failure`); the death and when it will end
(`backoff`); the success on the dead destination that is ignored; the end of
the backoff:
""")

sh("qsched --explain dead.events | grep -E '^(cohort|failure|dead|backoff|revive) '")

md("""
Step by step (document profile):

* D1..D3 fail: the failed-cohort count grows by 1/5, 1/4, 1/3, to 0.78. Each
  failure lowers the window by one at once (5 → 4 → 3 → 2).
* D4 fails at window 2: 0.78 + 1/2 = 1.28 > 1, so the destination is
  **dead**. This is the old scheduler's "throttling down to zero concurrency
  after a single pseudo-cohort failure". M1's five pending entries are
  deferred at once, and so is M2's recipient on arrival.
* D5 was still in flight and succeeds. The pseudocode does not say what a
  success on a dead destination means: its "After success" would divide by
  a window of 0. The document profile ignores it (S-CON-11), and the
  destination stays dead, so M3, at 299 s, is deferred too.
* At 300 s the backoff has expired: `revive ... 5`. M4 is delivered.

Postfix 3.x differs in three places, and the `postfix` profile shows all
three:
""")

sh("qsched --profile postfix dead.events")

md("""
Its rounding guard makes the first failure cost 2 (5 → 3, S-PFX-2). It
declares death when the count *reaches* the limit (1/5 + 1/3 + 1/2 >= 1 at
D3, S-PFX-1), so D4's failure finds the destination already dead and
changes nothing. It takes the successful D5 as proof that the site is back and
revives the destination at once, with window = deliveries in flight
(S-PFX-8, S-PFX-4). So M3 is delivered, and the 300 s mark passes unnoticed.
The explain lines show the three differences as they happen:
""")

sh("qsched --explain --profile postfix dead.events | grep -E '^(cohort|failure|dead|backoff|revive) '")

lesson("dead-revive", "Negative feedback, dead destinations and revival")

md("""
# Part II: the preemptive job scheduler

## 6. Jobs, slots and the document's two sequences

Within one transport, messages are served from the *job list*, oldest
first: "we pick some entry of the first (oldest) job on the queue, assign
it to delivery agent, pick another one from the same job ... until all the
entries are used". That is plain FIFO, and a mailing list at the head of the
list would hold up everything behind it.

The trick is to let the head job earn *delivery slots* for others. Every
time it gets an entry, its *available-slot counter* grows by one. Divided by
the slot cost k (`default_delivery_slot_cost`), the counter is the number of
slots it has saved up for smaller jobs (S-PRE-4). A job behind it that
needs no more slots than the current job can still save up is a
*candidate* (S-PRE-5). The best candidate has the highest (time since
enqueue + 1) / entries (S-PRE-6). It *preempts* the current job as soon as
the counter allows (S-PRE-7): it moves in front of the current job, and the
current job pays for it.

The document's example: "Say we have ten-recipient mail followed by two
two-recipient mails. If the preemption happened when enough delivery slots
accumulate (assuming slot cost 2), the delivery sequence becomes
11112211113311." Each recipient is its own entry
(`default_destination_recipient_limit = 1`), and every delivery completes
before the next `select`:
""")

sh("""
cat > seq.events <<'EOF'
default_delivery_slot_cost = 2
default_delivery_slot_discount = 0
default_delivery_slot_loan = 0
default_minimum_delivery_slots = 3
default_destination_recipient_limit = 1
arrive M1 smtp:a.example*10
arrive M2 smtp:b.example*2
arrive M3 smtp:c.example*2
EOF
for i in $(seq 14); do printf 'select\\ndone D%d ok\\n' $i; done >> seq.events
qsched seq.events | awk '{print $3}' | tr -d 'M\\n'; echo
""")

md("""
Here is why, with the pool bookkeeping left out:
""")

sh("qsched --explain seq.events | grep -Ev '^(rcptpool|activate|read|safety) ' | head -22")

md("""
* After D1 the counter of M1 is 1. The best candidate is M2: both small
  messages score 1/2 (delay 1 s, 2 entries), and the tie goes to the earlier
  one. `max_slots=5` is what M1 can still save up: (10 entries − 1 selected
  + counter 1) / 2. M2 needs 2 slots, but 1/2 = 0 (integer division, S-PRE-7),
  so no preemption yet.
* After D4 the counter is 4, and 4/2 = 2 slots >= 2 needed: M2 **preempts**
  M1. It moves in front of M1 on the job list, becomes M1's child at stack
  level 1, and M1's counter drops by 2 × 2 = 4 at once (S-PRE-8).
* M2's two deliveries run. M2 then **pops** from the stack (S-PRE-9). It used
  exactly the 2 slots it was charged (`used_delta=0`), so M1 gets nothing
  back, and M1 continues from counter 0.

The same happens for M3 after four more M1 deliveries. That gives
1111 22 1111 33 11.
""")

lesson("seq-11112211113311", "the delivery sequence 11112211113311")

md("""
The *discount* and the *loan* let a preemption happen before all the slots
are saved up, "and we promise we would wait for the remaining 50% later".
With a 50% discount the document predicts 11221111331111:
""")

sh("""
sed 's/discount = 0/discount = 50/' seq.events > seq50.events
qsched seq50.events | awk '{print $3}' | tr -d 'M\\n'; echo
qsched --explain seq50.events | grep -e '^preempt' -e '^pop'
""")

md("""
Now 2/2 = 1 slot is enough, since 100 × 1 >= 2 × (100 − 50). But the full
price of 2 slots is still charged, so M1's counter goes to −2. It has to earn
its way back above 0 before the next preemption can even be tried (S-PRE-3).
The paid-back slots are the "promise". This is also why the mailing list
suffers so little: for every k entries it gets, it gives away at most one
slot, so its delivery takes at most (k+1)/k times as long without recursive
preemption, "not worse than k/(k-1) no matter how many recursive preemptions
happen".
""")

lesson("seq-11221111331111", "discount 50%: 11221111331111")

md("""
## 7. A preemption stack

A preempting job can itself be preempted. The document draws job 1
preempted by job 4, and job 4 preempted by job 7:

```
first job->    1--2--3--5--6--8--...    <- job list
on job list    |
               4    <- preemption stack
               |
current job->  7
```

The stream below builds it. M1 is a 20-recipient message. M2, M3, M5, M6 and
M8 are too big to be candidates (30 recipients). M4 (4 recipients) preempts M1,
and M7 (1 recipient) arrives while M4 is running and preempts M4. To keep the
example small, the minimum slots are 1 (S-PRE-3).
""")

sh("""
cat > stack.events <<'EOF'
default_delivery_slot_cost = 2
default_delivery_slot_loan = 0
default_delivery_slot_discount = 0
default_minimum_delivery_slots = 1
default_destination_recipient_limit = 1
arrive M1 smtp:one*20
arrive M2 smtp:two*30
arrive M3 smtp:three*30
arrive M4 smtp:four*4
arrive M5 smtp:five*30
arrive M6 smtp:six*30
EOF
for i in $(seq 10); do printf 'select\\ndone D%d ok\\n' $i; done >> stack.events
printf 'arrive M7 smtp:seven\\narrive M8 smtp:eight*30\\n' >> stack.events
for i in $(seq 11 16); do printf 'select\\ndone D%d ok\\n' $i; done >> stack.events
qsched stack.events | awk '{printf "%s ", $3} END {print ""}'
qsched --explain stack.events | grep -e '^preempt' -e '^pop'
""")

md("""
M1 saves up 4 slots (8 entries) and M4 takes them. After two of its own
entries, M4 has saved 1 slot, enough for M7 (`level=2`). At that moment the
scheduler's job list reads `M7 M4 M1 M2 M3 M5 M6 M8`, which is the
document's picture flattened: "the job preempting the current job is moved
in front of the current job on the job list". M7 completes and pops, and
its parent M4 is exactly one level up, so M4 gets its refund (`refund=yes`,
nothing to give back here). M4 completes and pops back to M1, and M1
continues: "After job 7 is completed, remaining entries of job 4 are
selected, and once they are all selected, job 1 continues."

M7 has a single recipient, so it is preempting, delivered, popped and
retired within one `select`: the state after that event no longer shows
it. The timeline viewer (section 10) therefore draws the job list also at
the `preempt` line itself, as the document's picture: `M1--M2--M3--M5--M6--M8`
along the top, M4 under M1 at level 1, M7 under M4 at level 2, current.
""")

lesson("preemption-stack", "A preemption stack (the document's picture)")

md("""
## 8. Blockers

Destination windows get in the way. If none of a job's destinations can
take another delivery, the job is a **blocker**. The scheduler skips it, and
it is not a candidate either (S-PRE-11). When a destination that blocked
jobs can take a delivery again, "all jobs which have peers for that
destination are unblocked at once" (S-PRE-12): the blockers with an entry
waiting there. The current job stays the job selected last, but selection
looks at the list from the head again, so a released job in front is served
first. (Postfix releases every blocker and makes the head the current job:
S-PFX-21.) "The jobs may be completed in arbitrary order."

To block a job on purpose, give every destination a window of 1 and keep one
delivery to it in flight. With a destination recipient limit of 1 each
recipient is its own destination, so two messages that name the same
recipient (`slow@x`) share one queue. M0 goes first, and its deliveries to
`slow@x` and `slow2@x` (D1, D2) are left running.

The document's second blocker story: "if both 7 and 4 are blocked, then 1
is completed, then 7 becomes unblocked and is completed, then 2 is
completed and only after that 4 becomes unblocked and is completed".
""")

sh("""
cat > block.events <<'EOF'
default_delivery_slot_cost = 2
default_delivery_slot_loan = 0
default_delivery_slot_discount = 0
default_minimum_delivery_slots = 1
default_destination_recipient_limit = 1
default_destination_concurrency_limit = 1
initial_destination_concurrency = 1
arrive M0 smtp:slow@x smtp:slow2@x
select
select
arrive M1 smtp:one*10
arrive M2 smtp:two*5
arrive M3 smtp:three*30
arrive M4 smtp:four*2 smtp:slow2@x
arrive M5 smtp:five*30
arrive M6 smtp:six*30
EOF
for i in $(seq 3 10); do printf 'select\\ndone D%d ok\\n' $i; done >> block.events
printf 'arrive M7 smtp:slow@x\\narrive M8 smtp:eight*30\\n' >> block.events
for i in $(seq 11 14); do printf 'select\\ndone D%d ok\\n' $i; done >> block.events
printf 'done D1 ok\\n' >> block.events                  # slow@x is free again
for i in $(seq 15 20); do printf 'select\\ndone D%d ok\\n' $i; done >> block.events
printf 'done D2 ok\\n' >> block.events                  # slow2@x is free again
for i in $(seq 21 22); do printf 'select\\ndone D%d ok\\n' $i; done >> block.events
qsched block.events | awk '/^deliver/ {printf "%s ", $3} END {print ""}'
qsched --explain block.events |
  grep -Ev '^(rcptpool|activate|read|deliver|leave|candidate|nocandidate|nopreempt|safety) '
""")

md("""
Reading the explain lines from the top:

* M4 preempts M1 (level 1). After two of M4's entries, M7 preempts M4
  (level 2). That is the stack of section 7 again.
* M7's only recipient is `slow@x`, still busy with M0's D1. M7 is marked a
  **blocker**. M4's last recipient is `slow2@x`, busy with D2, so M4 is a
  blocker too. The scheduler goes on with M1 and **completes it** (M1's
  `retire`). M4's parent is now gone, so M4 is an *orphan* at level 1, and
  M7 stays M4's child at level 2 (S-PRE-10).
* `done D1 ok` frees `slow@x`: **unblock** releases M7, whose entry waits
  there. Selection looks from the head, and M7 is delivered. Its pop
  refunds M4, exactly one level up.
* M4 waits for `slow2@x` and stays a blocker. **M2** is the next job, and
  it completes.
* `done D2 ok` frees `slow2@x`: M4 is released and completes. It pops with
  `parent=-` because its parent is gone.

So the order of completion is 1, 7, 2, 4, exactly the document's story. The
first story ("if the current job 7 becomes blocked, the next job 4 may
complete before the job 7 becomes unblocked again") is
`tests/golden/pre-blocker-story-a`. There, when M4 completes first, M7 is
*adopted* by M1, two levels up, and its later pop gives M1 no refund
(`refund=no`): an adoptive parent never paid for the child.
""")

lesson("blocker-story", "Blockers: the document's second story")

md("""
# Part III: memory limits

## 9. Reading recipients in batches

A real queue manager cannot hold every recipient in memory. Messages enter
the active queue only while fewer than `qmgr_message_active_limit` are
there. A message's recipients are read in *batches* (S-MEM-1 .. S-MEM-4):

* the first batch is at least `qmgr_message_recipient_minimum`, and more
  while fewer than `qmgr_message_recipient_limit` recipients are in memory
  in total;
* each transport has a pool of `TRANSPORT_recipient_limit` *recipient
  slots*. A new job takes whatever is left in its transport's pool. Later
  batches may read as many recipients as all of the message's jobs have
  slots, plus the minimum.

The document's worked example: "if a message has three jobs, the first
with 1 recipient still in-core and 4 recipient slots, the second with 5
recipients in-core and 5 recipient slots, and the third with 2 recipients
in-core and 0 recipient slots ... we could immediately read
2+qmgr_message_recipient_minimum more recipients". Here is that state. The
three jobs sit on three transports whose pools hold 4, 5 and 2 slots, and
the last pool is already taken by an earlier message M0. The minimum is 3.
""")

sh("""
cat > worked.events <<'EOF'
qmgr_message_recipient_minimum = 3
qmgr_message_recipient_limit = 10
t1_recipient_limit = 4
t2_recipient_limit = 5
t3_recipient_limit = 2
default_recipient_refill_limit = 4
arrive M0 t3:z.example*2
arrive M t1:a.example t2:b.example*5 t3:c.example*2 t2:b.example*100
select t1
select t2
EOF
qsched --explain worked.events | grep -v '^rcptpool'
""")

md("""
M's first batch is max(3, 10 − 2) = 8 recipients: 1 for t1, 5 for t2, 2 for
t3. Its jobs hold 4 + 5 + 0 = 9 slots and its limit is 3 + 9 = 12. So the
next batch (read before the `select t1` picks an entry, because the room of
4 has reached the refill limit of 4) is 12 − 8 = **4** recipients, which is
1 + minimum, not 2 + minimum. The document's own figures give 9 − 8 = 1.
Postfix's code computes the same 1 + minimum, so the "2" is a slip in the
document (spec/memory.md, S-MEM-4). The 4 new recipients are for t2, and
they join t2's pending entry, which now holds 9 recipients (D2). The t1 job
lent its slots to the message as a whole and ends up *sponsoring* the t2 job,
as the document says can happen.

The document ends with upper bounds on how many recipients can be in memory.
These are useful estimates, but the algorithm it describes can exceed them.
spec/memory.md (S-MEM-9) gives two short counterexamples and a bound that
really holds. `qsched --stats` prints both beside the peak it saw:
`bound` is the document's formula, `s_inv_8_bound` the bound that holds
(S-INV-8), per transport and in total.
""")

lesson("memory-worked-example", "Memory: the document's worked example")

md("""
# Part IV: seeing it

## 10. The timeline and the playground

Traces get long. `--format html` turns any stream into one HTML page that
draws the run (no network needed: everything is inside the file):
""")

sh("""
qsched --format html seq.events > seq.html
grep -q '://' seq.html || echo "seq.html holds no URL: it needs no network"
""")

md("""
Open it in a browser. For each transport a **job lane** shows the job list
after every event, one row per position, coloured by message: the current
job is outlined, preempting jobs carry their stack level (`M2 L1`), blockers
are hatched, a triangle marks each preemption, and a strip on top shows the
delivery sequence (for seq.events it reads 1111 22 1111 33 11). For each
destination a **lane** shows deliveries as bars from `deliver` to `done`
(green ok, red fail, amber defer, blue still in flight), stacked so their
height is the busy count, the **window** as a step line, dead periods
shaded and revivals marked. Click an event (in the list, on a bar, on a
mark) or step with the arrow keys: the panel shows the stream line, every
trace line it produced at the explain level, the state after it, and at a
`preempt` line the document's picture of the job list and its preemption
stack. Large traces stay usable: a 100,000-event stream gives a 26 MB page
that headless Chromium opens in about 1.2 s and scrolls at close to 60
frames a second, because only the visible part is drawn and events
narrower than a pixel are aggregated (`make viewer-bench` measures it).

`make playground` builds `build/playground/index.html`: the same C core,
compiled to WebAssembly, in a page where you edit a stream and the trace
and the timeline follow as you type. It holds every lesson linked from the
sections above (`#lesson=ID` in the address opens one). The WebAssembly
build prints the same bytes as the native one on every golden stream
(`tests/sh/teach-wasm.sh`).

# Where next

* [spec/README.md](../spec/README.md): the rules, with the sentence of the
  document each one implements.
* `tests/golden/`: more streams, each with a hand-derived expected trace
  and a header that explains it.
* `qsched verify EVENTS TRACE`: check your own scheduler's trace against
  qsched's, and see where and why they first differ.
""")
