#!/usr/bin/env python3
"""Runs one command and writes its wall time and CPU time (user + system, every thread) in
seconds to microseconds, and its exit status: `child_times.py OUT LIMIT_S CMD ARG...` writes
"WALL CPU STATUS" to OUT. The command keeps this process's stdin, stdout and stderr. A command
still running after LIMIT_S seconds is killed and its status is 124, as timeout(1) reports it.

Why not bash's `time`: it prints milliseconds, and a few-millisecond process (a small network's
one case) then reads 0.003 or 0.004 s, a third apart; the kernel's own account of a reaped
child (wait4's rusage) has microseconds.
"""
import os
import signal
import subprocess
import sys
import threading
import time


def main(argv):
    if len(argv) < 3:
        sys.exit("usage: child_times.py OUT LIMIT_S CMD [ARG...]")
    out, limit, cmd = argv[0], float(argv[1]), argv[2:]
    start = time.perf_counter()
    try:
        child = subprocess.Popen(cmd)
    except OSError as e:
        sys.exit(f"child_times.py: {cmd[0]}: {e.strerror}")
    killed = threading.Event()

    def kill():
        killed.set()
        child.send_signal(signal.SIGKILL)

    timer = threading.Timer(limit, kill)
    timer.start()
    _, status, usage = os.wait4(child.pid, 0)  # blocks: no polling beside the child
    timer.cancel()
    wall = time.perf_counter() - start
    code = 124 if killed.is_set() else os.waitstatus_to_exitcode(status)
    if code < 0:  # killed by a signal: the shell's convention
        code = 128 - code
    with open(out, "w") as f:
        f.write(f"{wall:.6f} {usage.ru_utime + usage.ru_stime:.6f} {code}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
