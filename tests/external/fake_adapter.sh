#!/bin/sh
# fake_adapter.sh: a stand-in external variant for tests/external/external_test.c.
# It speaks (or deliberately breaks) protocol 1 of adapters/PROTOCOL.md; the
# first argument picks the behaviour. Plain POSIX sh, no python needed.
#   good        ATTNBENCH_SAMPLES samples (k + 0.25 ms for k = 1..n), a check
#               line, a comment, and an env line echoing the configuration it
#               received (so the test can check how it was passed) and its cwd
#   malformed   good samples, then a line no protocol knows
#   nonfinite   sample 17 (stdout line 17) is 'nan'
#   negative    the first sample is -1
#   fewer       one sample fewer than asked
#   nocheck     samples but no check line
#   badjson     an env line that is not JSON
#   badcheck    a check line without plain_max_abs_err
#   crash       writes 20000 bytes then a last line to stderr, exits 3
#   adaptererr  prints `error ...` and exits 1
#   signal      kills itself with SIGSEGV
#   hang        starts a `sleep 60` (its pid on stderr), waits for it
#   hangterm    like hang but ignores SIGTERM (needs the SIGKILL)
#   output      good samples; copies $FAKE_O to $ATTNBENCH_OUTPUT and names
#               it on the check line (`check output=PATH`) beside figures
#               that claim no error (attnbench must ignore them); with
#               $FAKE_O_PATH it names that path instead
mode=$1
n=${ATTNBENCH_SAMPLES:-0}

samples() {
    k=1
    while [ "$k" -le "$1" ]; do
        echo "sample $k.25"
        k=$((k + 1))
    done
}
check() {
    echo "check max_abs_err=0.000244140625 mean_abs_err=3.0517578125e-05 rel_l2_err=0.0009765625 plain_max_abs_err=0.00048828125 nonfinite=0 atol=0.0001220703125 rows_checked=4096"
}

case "$mode" in
output)
    samples "$n"
    cp "$FAKE_O" "${FAKE_O_PATH:-$ATTNBENCH_OUTPUT}" || exit 4
    echo "check max_abs_err=0 mean_abs_err=0 rel_l2_err=0 plain_max_abs_err=0 nonfinite=0 output=${FAKE_O_PATH:-$ATTNBENCH_OUTPUT}"
    ;;
good)
    echo "# fake adapter, protocol $ATTNBENCH_PROTOCOL"
    samples "$n"
    echo ""
    check
    printf 'env {"fake": true, "cwd": "%s", "cfg": "%s %s %s %s %s %s %s %s %s %s %s %s %s"}\n' \
        "$(pwd)" "$ATTNBENCH_PROTOCOL" "$ATTNBENCH_B" "$ATTNBENCH_H" "$ATTNBENCH_S" \
        "$ATTNBENCH_D" "$ATTNBENCH_CAUSAL" "$ATTNBENCH_DTYPE" "$ATTNBENCH_WARMUP" \
        "$ATTNBENCH_SAMPLES" "$ATTNBENCH_SEED" "$ATTNBENCH_TIMING" "$ATTNBENCH_GRAPH_K" \
        "${ATTNBENCH_STALE:-unset}"
    echo "a note for stderr" >&2
    ;;
malformed)
    samples "$n"
    check
    echo "Using backend flash"
    ;;
nonfinite)
    samples 16
    echo "sample nan"
    samples $((n - 17))
    check
    ;;
negative)
    echo "sample -1"
    samples $((n - 1))
    check
    ;;
fewer)
    samples $((n - 1))
    check
    ;;
nocheck)
    samples "$n"
    ;;
badjson)
    samples "$n"
    check
    echo 'env {"torch": 2.11.0}'
    ;;
badcheck)
    samples "$n"
    echo "check max_abs_err=0.001 mean_abs_err=0.0001 rel_l2_err=0.001 nonfinite=0"
    ;;
crash)
    samples 3
    i=0
    while [ $i -lt 200 ]; do
        echo "traceback filler line $i ....................................................................................." >&2
        i=$((i + 1))
    done
    echo "RuntimeError: CUDA error: an illegal memory access was encountered" >&2
    exit 3
    ;;
adaptererr)
    echo "error backend flash does not support D=512" 
    echo "details on stderr" >&2
    exit 1
    ;;
signal)
    echo "about to fault" >&2
    kill -SEGV $$
    ;;
hang | hangterm)
    [ "$mode" = hangterm ] && trap '' TERM
    samples 2
    sleep 60 &
    echo "sleeper $!" >&2
    wait
    ;;
*)
    echo "unknown mode '$mode'" >&2
    exit 2
    ;;
esac
