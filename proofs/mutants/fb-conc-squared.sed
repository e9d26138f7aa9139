# proofs/mutants/fb-conc-squared.sed - mutant: x/N computed as x/N/N
# (S-CON-2).  Still in [0, x] and still x at N = 1, so range, at_most_base
# and full_at_one hold; only the exact result catches it.
# expect: exact
# function: qs_fb_value
s/return base \/ (double)window;/return base \/ (double)window \/ (double)window;/
