# proofs/mutants/fb-sqrt-times.sed - mutant: x/sqrt(N) computed as
# x*sqrt(N) (S-CON-2); checked in the real-number model like the original.
# Expected to fail: range and at_most_base.
# expect: at_most_base
# function: qs_fb_value
s/return base \/ sqrt((double)window);/return base * sqrt((double)window);/
