# proofs/contracted.awk - the functions that carry an ACSL contract: the
# name of the function whose definition or prototype follows a /*@ ... */
# block that starts a line (blank lines between are allowed).  A global
# annotation block (logic, predicate, axiomatic, lemma, ...) names no
# function; a function contract followed by anything but a function (a
# comment, a preprocessor or // line) is an error: exit 1, FILE:LINE on
# stderr (it would otherwise drop the function from the proofs silently).
# The one reading of "contracted" shared by proofs/run.sh (which proves
# every contracted function) and proofs/coverage.sh (the README's table).
# Usage: awk -f proofs/contracted.awk FILE...
/^\/\*@/ {
    spec = 1; start = FNR
    # a global annotation (logic, predicate, axiomatic, lemma, ...) is not
    # a function contract; any other block is, and must precede a function
    global = $0 ~ /^\/\*@[ \t]*(logic|predicate|axiomatic|lemma|inductive|ghost|type|global)([^A-Za-z_]|$)/
}
spec && !global && /^\/\*@[ \t]*$/ { first = 1 }
spec && first && !/^\/\*@/ && !/^[ \t]*(\/\/.*)?$/ {
    # the first clause of a block opened by a bare "/*@"
    global = $0 ~ /^[ \t]*(logic|predicate|axiomatic|lemma|inductive|ghost|type|global)([^A-Za-z_]|$)/
    first = 0
}
spec { if ($0 ~ /\*\/[ \t]*$/) { spec = 0; after = 1 } next }
after && /^[ \t]*$/ { next }
after {
    after = 0
    line = $0
    # (a name in parentheses, `static T (F)(...)`: the run-time checks'
    # macro F(...) does not expand there, proofs/rtc/gen.py)
    if ($0 !~ /^(\/\*|#|\/\/)/ && match(line, /\(?[A-Za-z_][A-Za-z0-9_]*\)?\(/)) {
        name = substr(line, RSTART, RLENGTH - 1)
        gsub(/[()]/, "", name)
        print name
    }
    else if (!global) {
        # A contract that no function follows would prove nothing and drop
        # its function from the proofs without a word: an error.
        printf "%s:%d: an ACSL function contract not followed by its function\n", FILENAME, start > "/dev/stderr"
        bad = 1
    }
}
END { exit bad }
