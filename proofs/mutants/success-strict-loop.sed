# proofs/mutants/success-strict-loop.sed - mutant: the document's loop
# "while (success >= 1)" written as "while (success > 1)" (S-CON-4): a
# whole unit of feedback would stay in `success` instead of growing the
# window.  Expected to fail: success_range (success reaches 1).
# expect: success_range
# function: qs_success_step
s/: (\*success >= 1)) {/: (*success > 1)) {/
