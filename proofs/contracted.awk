# proofs/contracted.awk - the functions that carry an ACSL contract: the
# name of the function whose definition or prototype follows a /*@ ... */
# block that starts a line (blank lines between are allowed; a comment,
# preprocessor or // line after the block means no function follows).
# The one reading of "contracted" shared by proofs/run.sh (which proves
# every contracted function) and proofs/coverage.sh (the README's table).
# Usage: awk -f proofs/contracted.awk FILE...
/^\/\*@/ { spec = 1 }
spec { if ($0 ~ /\*\/[ \t]*$/) { spec = 0; after = 1 } next }
after && /^[ \t]*$/ { next }
after {
    after = 0
    if ($0 ~ /^(\/\*|#|\/\/)/) next
    line = $0
    if (match(line, /[A-Za-z_][A-Za-z0-9_]*\(/))
        print substr(line, RSTART, RLENGTH - 1)
}
