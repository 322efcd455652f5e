#!/bin/sh
# fake_adapter_ipc.sh: a protocol-2 adapter in plain sh that speaks the
# device-buffer handshake (adapters/PROTOCOL.md, "Device buffers"), for
# tests/external/ext_ipc_test.c. $FAKEI_MODE picks the behaviour:
#   hello      `hello ipc=1 layout=bshd` at once when ATTNBENCH_IPC=1
#   badhello   `hello layout=nhwc` (malformed) when ATTNBENCH_IPC=1
#   late       the hello after $FAKEI_LATE_S seconds (after attnbench's wait)
#   comment    an older adapter whose first line, at once, is a comment
#   liar       `hello ipc=0`, but answers `check device` (never offered ipc=)
# On `config`: `check device peak_bytes=4096` when the request names an
# ipc= file that exists (its path logged), else check figures; then ready.
# Every request and ATTNBENCH_IPC are appended to $FAKEI_LOG.
[ "${ATTNBENCH_PROTOCOL:-}" = 2 ] || { echo "error protocol 2 only"; exit 1; }
log() { [ -n "${FAKEI_LOG:-}" ] && echo "$*" >>"$FAKEI_LOG"; return 0; }
log "start ATTNBENCH_IPC=${ATTNBENCH_IPC:-unset}"
mode=${FAKEI_MODE:-hello}
if [ "${ATTNBENCH_IPC:-}" = 1 ]; then
  case $mode in
  hello) echo "hello ipc=1 layout=bshd future=7" ;;
  badhello) echo "hello layout=nhwc" ;;
  liar) echo "hello ipc=0" ;;
  late) sleep "${FAKEI_LATE_S:-1}"; echo "hello ipc=1 layout=bshd" ;;
  esac
fi
[ "$mode" = comment ] && echo "# an older adapter says something first"
while read -r cmd rest; do
  log "$cmd $rest"
  case "$cmd" in
  config)
    ipc=
    for kv in $rest; do
      case "$kv" in ipc=*) ipc=${kv#ipc=} ;; esac
    done
    if [ "$mode" = liar ] || { [ -n "$ipc" ] && [ -f "$ipc" ]; }; then
      log "ipc file $ipc"
      echo "check device peak_bytes=4096"
    else
      echo "check max_abs_err=0.0001 mean_abs_err=0.00001 rel_l2_err=0.0001 plain_max_abs_err=0.001 nonfinite=0 rows_checked=4"
    fi
    echo ready
    ;;
  take)
    i=0
    while [ "$i" -lt "$rest" ]; do echo "sample 0.25"; i=$((i + 1)); done
    echo done
    ;;
  quit) exit 0 ;;
  *) echo "error unknown request $cmd" ;;
  esac
done
