#!/bin/sh
# fake_adapter2.sh: a protocol-2 adapter in plain sh for the tests
# (adapters/PROTOCOL.md, "Protocol 2"). One process for the whole run:
# reads `config ...`, answers env/check/ready (or `error` when S equals
# $FAKE2_ERROR_S), answers `take K` with K samples and `done`, exits on
# `quit`. It logs every request to stderr and, when $FAKE2_LOG is set,
# appends "pid request" lines to that file (the test counts processes and
# requests). $FAKE2_DIE_TAKE=N: exit 3 at the N-th take (a crash inside the
# rounds). Samples are 0.5 ms plus a few microseconds. $FAKE2_OUTPUT_DIR:
# for each configuration copy FAKE2_OUTPUT_DIR/S<S>.f32 to $ATTNBENCH_OUTPUT
# and name it on the check line (attnbench checks that output itself). It
# predates the device-buffer handshake (PROTOCOL.md "Device buffers"): it
# never says hello; its log's first line records whether it was offered.
[ "${ATTNBENCH_PROTOCOL:-}" = 2 ] || { echo "error this adapter speaks protocol 2, not ${ATTNBENCH_PROTOCOL:-none}"; exit 1; }
[ -n "${FAKE2_LOG:-}" ] && echo "$$ start ATTNBENCH_IPC=${ATTNBENCH_IPC:-unset}" >>"$FAKE2_LOG"
# $FAKE2_HELLO: a hello to say when asked (ATTNBENCH_HELLO=1), e.g.
# "ipc=0 ahead=1": it then takes `ahead` lines, which it logs and leaves
# unanswered (PROTOCOL.md "Shapes ahead")
[ -n "${FAKE2_HELLO:-}" ] && [ "${ATTNBENCH_HELLO:-}" = 1 ] && echo "hello $FAKE2_HELLO"
takes=0
while read -r cmd rest; do
  echo "fake2 $$: $cmd $rest" >&2
  [ -n "${FAKE2_LOG:-}" ] && echo "$$ $cmd $rest" >>"$FAKE2_LOG"
  case "$cmd" in
  config)
    S=
    for kv in $rest; do
      case "$kv" in S=*) S=${kv#S=} ;; esac
    done
    if [ "$S" = "${FAKE2_ERROR_S:-none}" ]; then
      echo "error S=$S is not supported by this fake"
      continue
    fi
    echo '# a comment line is ignored'
    echo 'env {"fake": 2}'
    if [ -n "${FAKE2_OUTPUT_DIR:-}" ]; then
      cp "$FAKE2_OUTPUT_DIR/S$S.f32" "$ATTNBENCH_OUTPUT" || { echo "error no output file for S=$S"; continue; }
      echo "check output=$ATTNBENCH_OUTPUT"
    else
      echo "check max_abs_err=0.0001 mean_abs_err=0.00001 rel_l2_err=0.0001 plain_max_abs_err=0.001 nonfinite=0 rows_checked=$S"
    fi
    echo ready
    ;;
  take)
    takes=$((takes + 1))
    [ "$takes" = "${FAKE2_DIE_TAKE:-0}" ] && { echo "fake2: dying at take $takes" >&2; exit 3; }
    i=0
    while [ "$i" -lt "$rest" ]; do
      echo "sample 0.50$((takes % 10))$i"
      i=$((i + 1))
    done
    echo done
    ;;
  ahead) case " ${FAKE2_HELLO:-} " in *" ahead=1 "*) ;; *) echo "error ahead without ahead=1" ;; esac ;;
  quit) exit 0 ;;
  *) echo "error unknown request $cmd" ;;
  esac
done
