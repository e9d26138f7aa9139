# proofs/mutants/failure-postfix-quarter.sed - mutant: Postfix's failure
# loop guard "while (failure - f/2 < 0)" (S-PFX-2) written with f/4.  The
# failure credit then stops in [f/4, 1 + f/4] instead of [f/2, 1 + f/2],
# inside every range clause of qs_failure_step (failure in [0, 3/2], the
# window down by at most 2, never up, the first failure of a cycle still
# steps): only the exact clause, which pins the result, catches it.
# expect: exact
# function: qs_failure_step
s|(\*failure - f / 2 < 0)|(*failure - f / 4 < 0)|
