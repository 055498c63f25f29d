#!/usr/bin/env python3
"""A bot program that misbehaves on purpose, for tests/external.rs.

Usage: faulty.py MODE DIR [N]. DIR marks the process (tests look for it in command lines) and
receives a file pid-<pid> for this process and for any child it starts. Until its fault the bot
plays the first legal move. Modes:
  ok            never fails
  crash         exits with status 3 at decision N (default 1)
  hang          at decision N: starts a child that sleeps, signals DIR/fifo if it exists, and
                sleeps for ever
  garbage       prints a line that is not JSON at decision N
  unknown_id    answers an id that is no move's at decision N
  illegal       answers a well-formed id of a move that is not legal at decision N
  close_stdout  closes its stdout at decision N and sleeps
  bad_version   answers hello with protocol version 99
  refuse        answers hello with an error (as for a version it does not know)
  slow_start    sleeps before answering hello
  chatty        writes 64 KiB to stderr before each answer (a full pipe must not block it)
  env           answers hello with an error unless AEROPLANE_TEST_ENV is "yes" and the working
                directory is DIR
  signals       writes DIR/signals-<pid>: its blocked and ignored signal masks (from
                /proc/self/status) as the harness started it
  flood         writes N MiB to stderr without a newline before answering hello
  setsid        at decision N starts a child in a session of its own (setsid) that sleeps,
                then plays on
  setsid_hang   the same, then signals DIR/fifo if it exists and sleeps for ever
  newline_error at decision N answers an error whose message holds a newline and a line
                that looks like the harness's own
  no_newline    at decision N prints the start of a move without a newline and sleeps for ever
"""

import json
import os
import subprocess
import sys
import time

mode, mark = sys.argv[1], sys.argv[2]
at = int(sys.argv[3]) if len(sys.argv) > 3 else 1
open(os.path.join(mark, "pid-%d" % os.getpid()), "w").close()


def send(text):
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


def sleep_forever():
    while True:
        time.sleep(3600)


if mode == "signals":
    with open("/proc/self/status") as status, open(os.path.join(mark, "signals-%d" % os.getpid()), "w") as out:
        out.write("".join(l for l in status if l.startswith(("SigBlk", "SigIgn"))))


def start_session_child():
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(3600)", mark], start_new_session=True
    )
    open(os.path.join(mark, "pid-%d" % child.pid), "w").close()


decisions = 0
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        if mode == "flood":
            chunk = "x" * (1 << 20)
            for _ in range(at):
                sys.stderr.write(chunk)
            sys.stderr.flush()
        if mode == "slow_start":
            sleep_forever()
        if mode == "env" and (os.environ.get("AEROPLANE_TEST_ENV") != "yes" or os.getcwd() != os.path.realpath(mark)):
            send(json.dumps({"type": "error", "message": "env %r, cwd %s" % (os.environ.get("AEROPLANE_TEST_ENV"), os.getcwd())}))
            sys.exit(0)
        if mode == "refuse":
            send(json.dumps({"type": "error", "message": "faulty.py does not speak protocol %d" % msg["protocol"]}))
            sys.exit(0)
        version = 99 if mode == "bad_version" else msg["protocol"]
        send(json.dumps({"type": "ready", "protocol": version, "name": "faulty.py", "author": "tests"}))
    elif kind == "choose":
        decisions += 1
        if mode == "chatty":
            sys.stderr.write(("chatter " * 8191) + "\n")
            sys.stderr.flush()
        if decisions == at and mode in ("setsid", "setsid_hang"):
            start_session_child()
            if mode == "setsid_hang":
                fifo = os.path.join(mark, "fifo")
                if os.path.exists(fifo):
                    with open(fifo, "w") as f:
                        f.write("hanging\n")
                sleep_forever()
        if decisions >= at:
            if mode == "newline_error":
                send(json.dumps({"type": "error", "message": "line one\nerror: forged by the bot"}))
                continue
            if mode == "crash":
                sys.exit(3)
            if mode == "hang":
                child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)", mark])
                open(os.path.join(mark, "pid-%d" % child.pid), "w").close()
                fifo = os.path.join(mark, "fifo")
                if os.path.exists(fifo):
                    with open(fifo, "w") as f:
                        f.write("hanging\n")
                sleep_forever()
            if mode == "garbage":
                send("this is not a protocol message")
                continue
            if mode == "unknown_id":
                send(json.dumps({"type": "move", "id": "banana"}))
                continue
            if mode == "illegal":
                send(json.dumps({"type": "move", "id": "99"}))
                continue
            if mode == "no_newline":
                sys.stdout.write('{"type": "move", "id": ')
                sys.stdout.flush()
                sleep_forever()
            if mode == "close_stdout":
                sys.stdout.close()
                try:
                    os.close(1)
                except OSError:
                    pass
                sleep_forever()
        send(json.dumps({"type": "move", "id": msg["moves"][0]["id"]}))
    elif kind == "ping":
        send(json.dumps({"type": "pong", "id": msg["id"]}))
    elif kind == "quit":
        break
