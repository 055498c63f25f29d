#!/usr/bin/env python3
"""Runs a bot program and records its conversation, for the schema tests in tests/external.rs.

Usage: tee.py DIR PROGRAM ARGS... Every line the harness sends is appended to
DIR/to_bot-<pid>.jsonl and every line the bot answers to DIR/from_bot-<pid>.jsonl.
"""

import os
import subprocess
import sys
import threading

out_dir = sys.argv[1]
child = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
tag = os.getpid()


def relay_out():
    with open(os.path.join(out_dir, "from_bot-%d.jsonl" % tag), "wb") as log:
        for line in child.stdout:
            log.write(line)
            log.flush()
            sys.stdout.buffer.write(line)
            sys.stdout.buffer.flush()


t = threading.Thread(target=relay_out)
t.start()
with open(os.path.join(out_dir, "to_bot-%d.jsonl" % tag), "wb") as log:
    for line in sys.stdin.buffer:
        log.write(line)
        log.flush()
        try:
            child.stdin.write(line)
            child.stdin.flush()
        except BrokenPipeError:
            break
child.stdin.close()
t.join()
sys.exit(child.wait())
