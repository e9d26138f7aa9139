# proofs/mutants/success-postfix-quarter.sed - mutant: Postfix's success
# loop guard "while (success + g/2 >= 1)" (S-PFX-2) written with g/4.
# The window then steps a little later in a few rounding corners, which
# every range clause of qs_success_step still allows (the success stays in
# [-1, 1), the window moves by at most 2 and never down): only the exact
# clause, which pins the result bit for bit, catches it.
# expect: exact
# function: qs_success_step
s|(\*success + g / 2 >= 1)|(*success + g / 4 >= 1)|
