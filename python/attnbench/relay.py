#!/usr/bin/env python3
"""relay.py: the external variant's command for a function served by
attnbench.compare (frontdoor.py). attnbench starts it as any protocol-2
adapter (adapters/PROTOCOL.md); it connects to the Unix socket the calling
Python process listens on, sends one JSON line with the ATTNBENCH_* and
thread variables attnbench gave it, then copies attnbench's requests
(its stdin) to the socket and the answers back to its stdout, line by
line, until either side closes. The function itself, its inputs and its
timing stay in the calling process (a notebook's kernel needs no import
path); only the protocol's lines cross the socket, once per request, never
inside a timed call.

Standard library only: it runs under whatever python3 attnbench finds.
Usage: relay.py SOCKET_PATH
"""
import json
import os
import socket
import sys
import threading

# what the serving process needs to know of this process's environment
FORWARDED = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def main(path):
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as e:
        print("error attnbench.compare is no longer listening on %s: %s" % (path, e), flush=True)
        return 1
    env = {k: v for k, v in os.environ.items() if k.startswith("ATTNBENCH_") or k in FORWARDED}
    sock.sendall((json.dumps(env) + "\n").encode())

    def requests():  # attnbench -> the serving process
        try:
            for line in sys.stdin.buffer:
                sock.sendall(line)
        except OSError:
            pass
        try:
            sock.shutdown(socket.SHUT_WR)  # end of file: quit
        except OSError:
            pass

    threading.Thread(target=requests, daemon=True).start()
    out = sys.stdout.buffer
    with sock.makefile("rb") as answers:
        for line in answers:  # the serving process -> attnbench
            out.write(line)
            out.flush()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.stderr.write("usage: relay.py SOCKET_PATH\n")
        sys.exit(2)
    sys.exit(main(sys.argv[1]))
