#!/usr/bin/env python3
"""Hash field expiration (Redis 7.4: HEXPIRE, HPEXPIRE, HEXPIREAT,
HPEXPIREAT with NX/XX/GT/LT, HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME,
HPERSIST) answered as redis-server 7.4.1 answers it:
  A. CASES, one connection in order, each reply byte for byte as 7.4.1's
     recorded ones (tests/server/redis74_hfe_replies.txt; Debian has no
     7.4 and CI builds none), run twice: on small hashes (listpack, and
     listpackex once a field was given a deadline) and with
     hash-max-listpack-entries 0 (hashtable). Only absolute deadlines
     (the years 2100 and after, or long past) or replies that do not
     depend on the clock: every command's arity and argument errors
     (FIELDS missing or misplaced, numfields 0, negative, not a number,
     not matching the fields given; expire times negative, not integers,
     past 2^46 ms in each unit, relative and absolute; a wrong type key,
     and which error comes first), a missing key (an array of -2s, nothing
     created), NX/XX/GT/LT on fields with and without a deadline, past
     times deleting fields (2) and the key with its last field, a field
     named twice in one FIELDS list, HSET/HMSET clearing a field's
     deadline while HSETNX/HINCRBY/HINCRBYFLOAT keep it, HPERSIST (-2, -1,
     1), HEXPIRETIME rounding up, OBJECT ENCODING (listpack, listpackex
     after any HPEXPIREAT even of a missing field, hashtable past the
     limits), RENAME/RENAMENX/COPY (DB too)/MOVE/SWAPDB keeping deadlines,
     DUMP then RESTORE (what HPEXPIRETIME, HGETALL and OBJECT ENCODING say
     after, not DUMP's bytes), the key's own TTL beside its fields', every
     hash read on fields with far deadlines, MULTI, and RESP3's replies;
  B. live, tolerant of timing: a field given 100 ms is, 300 ms later,
     gone for HGET, HMGET, HEXISTS, HSTRLEN, HGETALL, HKEYS, HVALS, HSCAN,
     HRANDFIELD (each on a hash of its own, small and large), HINCRBY
     restarts it, HTTL/HPERSIST/HPEXPIRE say -2; HTTL, HPTTL, HEXPIRETIME
     and HPEXPIRETIME within bounds of the local clock; active expiry:
     hashes whose every field has 100-300 ms, never read, are gone within
     seconds (DBSIZE, which reads no hash), with keyspace events hexpired
     then del for each (hexpire for the deadlines set, hpersist, hdel for
     past times), and a hash with one such field among others keeps the
     others; a 1000-field hash whose 999 fields expired: an HSCAN loop
     ends and returns only the live field; 5000 HPEXPIREs of 1 ms each set
     a deadline ahead of the command's time, none deletes its field;
  C. a random model test (seeded; the seed printed, --seed to rerun): 50
     hashes (10 of them past the listpack limit), thousands of random
     HSET, HDEL, HPEXPIREAT (deadlines now + 0..4000 ms, past, far; NX,
     XX, GT, LT), HPERSIST, HINCRBY, HGET, HGETALL, HEXISTS and
     HPEXPIRETIME against a model of each field's value and deadline. A
     field whose deadline is within MARGIN_MS of the op's time window is
     uncertain: no reply about it is asserted and the model follows what
     the server answered; a field past its deadline may still be stored
     (Redis deletes it lazily: HDEL counts it, HSET calls it an update,
     HPEXPIREAT revives it), so those replies may go either way.
     Mismatches must be 0. Then, teksdb-server only: the server stopped
     (SIGKILL) and started on the same directory keeps every value and
     deadline (fields whose deadline passed meanwhile gone), and a replica
     (--replicaof), once in sync and after the deadlines it was sent
     passed, holds every hash as the primary does. SAVEs along the way
     flush the memtables, so deadlines are read back from SST files too;
  D. teksdb-rdb-import of an RDB file redis-server 7.4.1 wrote
     (tests/support/fixtures/redis74_hash_field_deadlines.rdb): its field
     deadlines and encodings kept (teksdb-server only).

Usage: server_hash_field_expire_test.py PATH/TO/teksdb-server [--seed N]
       server_hash_field_expire_test.py --record PATH/TO/redis-server-7.4.1
         (runs CASES on that server and writes the file)
       server_hash_field_expire_test.py --redis PATH/TO/redis-server-7.4.1 [--seed N]
         (the test itself against Redis: CASES against the file, then B
         and C without the restart and the replica)
"""

import argparse
import os
import random
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import recorded_replies  # noqa: E402
from resp_client import Client, free_port  # noqa: E402
from server_checks import Checks, stop, wait_for  # noqa: E402

RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "redis74_hfe_replies.txt")

FAR_MS = 4102444800000       # 2100-01-01 00:00:00 UTC
FAR_S = FAR_MS // 1000
MAX_MS = (1 << 46) - 1       # the latest deadline Redis 7.4 takes (HFE_MAX_ABS_TIME_MSEC)
MAX_S = MAX_MS // 1000
# An argument replaced by the payload of the last DUMP in CASES.
DUMPED = "<the last DUMP's payload>"

EXPIRE_COMMANDS = ("HEXPIRE", "HPEXPIRE", "HEXPIREAT", "HPEXPIREAT")
FIELD_COMMANDS = ("HTTL", "HPTTL", "HEXPIRETIME", "HPEXPIRETIME", "HPERSIST")
# Past the limit, and at it (an error for the relative commands, which add
# the clock; a deadline for the absolute ones), in each command's unit.
OVER_LIMIT = {"HEXPIRE": (MAX_S + 1, MAX_S), "HPEXPIRE": (MAX_MS + 1, MAX_MS),
              "HEXPIREAT": (MAX_S + 1,), "HPEXPIREAT": (MAX_MS + 1,)}


def now_ms():
    return int(time.time() * 1000)


# ---------------------------------------------------------------- part A

def pass_cases(p, hashtable):
    """One pass of CASES, its keys prefixed with `p`; `hashtable`: every
    hash created as a hashtable (hash-max-listpack-entries 0). Each case is
    (command, how its reply is compared: "exact", "unordered" (an array's
    elements as a set: HKEYS, HVALS), "pairs" (HGETALL's field/value pairs
    as a set) or "type" (the reply's type only: HELLO, DUMP))."""
    cases = []

    def add(how, *cmd):
        cases.append(([str(a) for a in cmd], how))

    def exact(*cmd):
        add("exact", *cmd)

    h, s, nokey = p + "h", p + "str", p + "nokey"
    exact("FLUSHALL")
    exact("CONFIG", "SET", "hash-max-listpack-entries", "0" if hashtable else "128")
    # (Both servers' limits named: teksdb-server's own default value limit
    # is 128 bytes, Redis's 64.)
    exact("CONFIG", "SET", "hash-max-listpack-value", "64")

    # A missing key: each field -2, and nothing is created.
    exact("HEXPIRE", nokey, 100, "FIELDS", 2, "a", "b")
    exact("HPEXPIRE", nokey, 100, "NX", "FIELDS", 1, "a")
    exact("HEXPIREAT", nokey, 1, "FIELDS", 1, "a")
    exact("HPEXPIREAT", nokey, FAR_MS, "XX", "FIELDS", 3, "a", "b", "c")
    for cmd in FIELD_COMMANDS:
        exact(cmd, nokey, "FIELDS", 2, "a", "b")
    exact("EXISTS", nokey)
    exact("HEXPIRE", nokey, "abc", "FIELDS", 1, "a")
    exact("HEXPIRE", nokey, -1, "FIELDS", 1, "a")
    exact("HEXPIRE", nokey, 10, "FIELDS", 0, "a")
    exact("HPEXPIREAT", nokey, MAX_MS + 1, "FIELDS", 1, "a")
    exact("HTTL", nokey, "FIELDZ", 1, "a")
    exact("HPERSIST", nokey, "FIELDS", 2, "a")

    # Arity (before the key is looked at).
    exact("HSET", h, "a", 1, "b", 2, "c", 3)
    for cmd in EXPIRE_COMMANDS:
        exact(cmd)
        exact(cmd, h)
        exact(cmd, h, 10)
        exact(cmd, h, 10, "FIELDS")
        exact(cmd, h, 10, "FIELDS", 1)
        exact(cmd, h, 10, "NX", "FIELDS", 1)  # six arguments: numfields 1, no field
    for cmd in FIELD_COMMANDS:
        exact(cmd)
        exact(cmd, h)
        exact(cmd, h, "FIELDS")
        exact(cmd, h, "FIELDS", 1)

    # Argument errors, and which comes first.
    for cmd in EXPIRE_COMMANDS:
        for count in (0, -1, "x", "01", "+1", "1.0", 9223372036854775808, 9223372036854775807, 2):
            exact(cmd, h, 10, "FIELDS", count, "a")
        exact(cmd, h, 10, "FIELDS", 1, "a", "b")
        exact(cmd, h, 10, "FIELDS", 1, "a", "NX")
        exact(cmd, h, 10, "NX", "FIELDS", 0, "a")
        exact(cmd, h, 10, "FIELDZ", 1, "a")
        exact(cmd, h, 10, 1, "a", "b")
        exact(cmd, h, 10, "NX", "NX", "FIELDS", 1, "a")
        exact(cmd, h, 10, "NX", 1, "a", "b")
        exact(cmd, h, 10, "BOGUS", "FIELDS", 1, "a")
        for when in ("abc", "1.5", "", "010", "+10", " 10", -1, -9223372036854775808,
                     9223372036854775808, 9223372036854775807, *OVER_LIMIT[cmd]):
            exact(cmd, h, when, "FIELDS", 1, "a")
        exact(cmd, h, "abc", "FIELDS", 0, "a")
        exact(cmd, h, -1, "FIELDZ", 1, "a")
        exact(cmd.lower(), h, -5, "FIELDS", 1, "a")
    for cmd in FIELD_COMMANDS:
        for count in (0, -1, "x", "01", "1.0", 9223372036854775808, 2):
            exact(cmd, h, "FIELDS", count, "a")
        exact(cmd, h, "FIELDS", 1, "a", "b")
        exact(cmd, h, "FIELDZ", 1, "a")
        exact(cmd, h, 1, "a", "b")
        exact(cmd, h, "FIELDS", 0)
    # A wrong type comes before any argument error.
    exact("SET", s, "x")
    for cmd in EXPIRE_COMMANDS:
        exact(cmd, s, 10, "FIELDS", 1, "a")
        exact(cmd, s, "abc", "FIELDZ", 0, "a")
    for cmd in FIELD_COMMANDS:
        exact(cmd, s, "FIELDS", 1, "a")
        exact(cmd, s, "FIELDZ", 0, "a")
    # At the limits: relative times far ahead (whatever the clock), and
    # absolute ones exactly at 2^46 - 1 ms; HEXPIRETIME rounds up.
    exact("HEXPIRE", h, 60000000000, "FIELDS", 1, "a")
    exact("HPEXPIRE", h, 60000000000000, "FIELDS", 1, "a")
    exact("HEXPIREAT", h, MAX_S, "FIELDS", 1, "b")
    exact("HPEXPIREAT", h, MAX_MS, "FIELDS", 1, "c")
    exact("HEXPIRETIME", h, "FIELDS", 2, "b", "c")
    exact("HPEXPIRETIME", h, "FIELDS", 2, "b", "c")
    exact("HPEXPIREAT", h, FAR_MS + 1, "FIELDS", 2, "a", "b")
    exact("HPEXPIREAT", h, FAR_MS + 1000, "FIELDS", 1, "c")
    exact("HEXPIRETIME", h, "FIELDS", 3, "a", "b", "c")
    exact("HPEXPIRETIME", h, "FIELDS", 3, "a", "b", "c")
    exact("HEXPIREAT", h, FAR_S, "FIELDS", 1, "a")
    exact("HEXPIRETIME", h, "FIELDS", 1, "a")
    exact("HPEXPIRETIME", h, "FIELDS", 1, "a")
    exact("HTTL", h, "FIELDS", 2, "zz", "zz")

    # NX, XX, GT, LT on fields with and without a deadline.
    f = p + "cond"
    exact("HSET", f, "a", 1, "b", 2, "c", 3, "d", 4)
    exact("HPEXPIREAT", f, FAR_MS, "NX", "FIELDS", 2, "a", "b")
    exact("HPEXPIREAT", f, FAR_MS + 100000, "NX", "FIELDS", 3, "a", "b", "c")
    exact("HPEXPIRETIME", f, "FIELDS", 4, "a", "b", "c", "d")
    exact("HPEXPIREAT", f, FAR_MS + 50000, "XX", "FIELDS", 3, "a", "c", "d")
    exact("HPEXPIRETIME", f, "FIELDS", 4, "a", "b", "c", "d")
    exact("HPEXPIREAT", f, FAR_MS + 60000, "GT", "FIELDS", 4, "a", "b", "c", "d")
    exact("HPEXPIRETIME", f, "FIELDS", 4, "a", "b", "c", "d")
    exact("HPEXPIREAT", f, FAR_MS + 60000, "GT", "FIELDS", 1, "a")
    exact("HPEXPIREAT", f, FAR_MS + 60000, "LT", "FIELDS", 1, "a")
    exact("HPEXPIREAT", f, FAR_MS - 100000, "LT", "FIELDS", 2, "a", "d")
    exact("HPEXPIRETIME", f, "FIELDS", 5, "a", "b", "c", "d", "zz")
    exact("HEXPIRETIME", f, "FIELDS", 5, "a", "b", "c", "d", "zz")
    exact("HPEXPIREAT", f, FAR_MS, "nx", "FIELDS", 2, "zz", "a")
    exact("HEXPIREAT", f, FAR_S + 10, "gt", "fields", 1, "b")
    exact("HEXPIREAT", f, FAR_S + 5, "Lt", "Fields", 1, "b")
    exact("HEXPIRE", f, 100, "NX", "FIELDS", 1, "b")
    exact("HEXPIRE", f, 100, "GT", "FIELDS", 1, "b")
    exact("HEXPIRE", f, 100, "XX", "FIELDS", 1, "zz")
    exact("HPEXPIRE", f, 100000, "LT", "FIELDS", 1, "b")
    exact("HPEXPIREAT", f, FAR_MS, "XX", "FIELDS", 1, "b")
    exact("HPEXPIRETIME", f, "FIELDS", 1, "b")
    # A field named twice: each time answered for the hash as it is then.
    exact("HPEXPIREAT", f, FAR_MS + 1, "FIELDS", 3, "a", "a", "a")
    exact("HPEXPIRETIME", f, "FIELDS", 2, "a", "a")
    exact("HSET", f, "e", 5)
    exact("HPEXPIREAT", f, FAR_MS, "NX", "FIELDS", 2, "e", "e")
    exact("HPERSIST", f, "FIELDS", 2, "e", "e")
    exact("HPEXPIREAT", f, 1, "FIELDS", 2, "e", "e")
    exact("HEXISTS", f, "e")
    exact("HLEN", f)
    # The empty field name and a binary one.
    exact("HPEXPIREAT", f, FAR_MS, "FIELDS", 2, "", "a\x00b")
    exact("HSET", f, "", "empty", "a\x00b", "bin")
    exact("HPEXPIREAT", f, FAR_MS + 2, "FIELDS", 2, "", "a\x00b")
    exact("HPEXPIRETIME", f, "FIELDS", 2, "", "a\x00b")
    exact("HGET", f, "a\x00b")

    # Past times: the field deleted (2) when the condition holds, the key
    # with its last field.
    g = p + "past"
    exact("HSET", g, "x", 1, "y", 2, "z", 3, "w", 4, "v", 5)
    exact("HPEXPIREAT", g, FAR_MS, "FIELDS", 1, "y")
    exact("HPEXPIREAT", g, 1000, "NX", "FIELDS", 2, "x", "y")
    exact("HPEXPIREAT", g, 1000, "XX", "FIELDS", 2, "z", "y")
    exact("HPEXPIREAT", g, 1000, "GT", "FIELDS", 1, "w")
    exact("HPEXPIREAT", g, 1000, "LT", "FIELDS", 1, "w")
    add("pairs", "HGETALL", g)
    exact("HLEN", g)
    exact("EXISTS", g)
    exact("HEXPIRE", g, 0, "FIELDS", 1, "v")
    exact("HEXPIREAT", g, 1, "FIELDS", 2, "z", "nope")
    exact("EXISTS", g)
    exact("HLEN", g)
    exact("TYPE", g)
    add("pairs", "HGETALL", g)
    exact("OBJECT", "ENCODING", g)
    exact("HSET", g + "2", "a", 1, "b", 2)
    exact("HPEXPIRE", g + "2", 0, "FIELDS", 1, "a")
    exact("HPEXPIREAT", g + "2", 0, "FIELDS", 1, "b")
    exact("EXISTS", g + "2")
    exact("HSET", g + "3", "a", 1)
    exact("HPEXPIREAT", g + "3", FAR_MS, "FIELDS", 1, "a")
    exact("HEXPIREAT", g + "3", 1, "LT", "FIELDS", 1, "a")
    exact("EXISTS", g + "3")

    # Writes: HSET and HMSET clear a field's deadline (even with the same
    # value), HSETNX, HINCRBY and HINCRBYFLOAT keep it.
    t = p + "writes"
    exact("HSET", t, "a", 1, "b", 2, "c", 3, "i", 10, "fl", "1.5")
    exact("HPEXPIREAT", t, FAR_MS, "FIELDS", 5, "a", "b", "c", "i", "fl")
    exact("HSET", t, "a", 10)
    exact("HPEXPIRETIME", t, "FIELDS", 2, "a", "b")
    exact("HTTL", t, "FIELDS", 2, "a", "zz")
    exact("HPTTL", t, "FIELDS", 2, "a", "zz")
    exact("HSETNX", t, "b", 99)
    exact("HGET", t, "b")
    exact("HPEXPIRETIME", t, "FIELDS", 1, "b")
    exact("HMSET", t, "b", 20)
    exact("HPEXPIRETIME", t, "FIELDS", 1, "b")
    exact("HSET", t, "c", 3)
    exact("HPEXPIRETIME", t, "FIELDS", 1, "c")
    exact("HINCRBY", t, "i", 5)
    exact("HINCRBYFLOAT", t, "fl", "0.25")
    exact("HPEXPIRETIME", t, "FIELDS", 2, "i", "fl")
    exact("HINCRBY", t, "newi", 1)
    exact("HPEXPIRETIME", t, "FIELDS", 1, "newi")
    exact("HDEL", t, "i")
    exact("HPEXPIRETIME", t, "FIELDS", 1, "i")
    exact("HSET", t, "i", 7)
    exact("HPEXPIRETIME", t, "FIELDS", 1, "i")
    # HPERSIST: 1 where a deadline went, -1 where there was none, -2 where
    # no field.
    exact("HPERSIST", t, "FIELDS", 3, "fl", "newi", "nope")
    exact("HPERSIST", t, "FIELDS", 3, "fl", "newi", "nope")
    exact("HPEXPIRETIME", t, "FIELDS", 1, "fl")
    exact("HGET", t, "fl")

    # Encodings.
    e = p + "enc"
    exact("HSET", e, "a", 1, "b", 2)
    exact("OBJECT", "ENCODING", e)
    exact("HPERSIST", e, "FIELDS", 1, "a")
    exact("HTTL", e, "FIELDS", 1, "a")
    exact("OBJECT", "ENCODING", e)
    exact("HPEXPIREAT", e, FAR_MS, "FIELDS", 1, "nope")
    exact("OBJECT", "ENCODING", e)
    exact("HPEXPIREAT", e, FAR_MS, "XX", "FIELDS", 1, "a")
    exact("HPEXPIREAT", e, FAR_MS, "FIELDS", 1, "a")
    exact("HPERSIST", e, "FIELDS", 1, "a")
    exact("OBJECT", "ENCODING", e)
    exact("HSET", e + "2", "a", 1)
    exact("HPEXPIREAT", e + "2", FAR_MS, "FIELDS", 1, "a")
    exact("OBJECT", "ENCODING", e + "2")
    exact("HSET", e + "2", *[x for i in range(130) for x in (f"p{i}", i)])
    exact("OBJECT", "ENCODING", e + "2")
    exact("HPEXPIRETIME", e + "2", "FIELDS", 2, "a", "p0")
    exact("HSET", e + "3", "a", 1)
    exact("HPEXPIREAT", e + "3", FAR_MS, "FIELDS", 1, "a")
    exact("HSET", e + "3", "long", "x" * 100)
    exact("OBJECT", "ENCODING", e + "3")
    exact("HPEXPIRETIME", e + "3", "FIELDS", 2, "a", "long")
    big = p + "big"
    exact("HSET", big, *[x for i in range(200) for x in (f"f{i}", f"v{i}")])
    exact("OBJECT", "ENCODING", big)
    exact("HPEXPIREAT", big, FAR_MS, "FIELDS", 3, "f1", "f2", "nope")
    exact("HPEXPIRETIME", big, "FIELDS", 3, "f1", "f2", "f3")
    exact("OBJECT", "ENCODING", big)
    exact("HPEXPIREAT", big, 1, "FIELDS", 2, "f1", "f3")
    exact("HLEN", big)
    exact("HPEXPIRETIME", big, "FIELDS", 3, "f1", "f2", "f3")

    # RENAME, RENAMENX, COPY, MOVE, SWAPDB keep the deadlines.
    r = p + "ren"
    exact("HSET", r, "a", 1, "b", 2)
    exact("HPEXPIREAT", r, FAR_MS, "FIELDS", 1, "a")
    exact("RENAME", r, r + "2")
    exact("EXISTS", r)
    exact("HPEXPIRETIME", r + "2", "FIELDS", 2, "a", "b")
    exact("OBJECT", "ENCODING", r + "2")
    exact("HSET", r + "3", "z", 9)
    exact("HPEXPIREAT", r + "3", FAR_MS + 5, "FIELDS", 1, "z")
    exact("RENAME", r + "2", r + "3")
    exact("HPEXPIRETIME", r + "3", "FIELDS", 3, "a", "b", "z")
    add("pairs", "HGETALL", r + "3")
    exact("RENAMENX", r + "3", r + "4")
    exact("HPEXPIRETIME", r + "4", "FIELDS", 2, "a", "b")
    exact("RENAME", r + "4", r + "3")
    c1, c2 = p + "copy1", p + "copy2"
    exact("COPY", r + "3", c1)
    exact("HPEXPIRETIME", c1, "FIELDS", 2, "a", "b")
    exact("HPERSIST", c1, "FIELDS", 1, "a")
    exact("HPEXPIRETIME", r + "3", "FIELDS", 1, "a")
    exact("HPEXPIRETIME", c1, "FIELDS", 1, "a")
    exact("COPY", r + "3", c1, "REPLACE")
    exact("HPEXPIRETIME", c1, "FIELDS", 1, "a")
    exact("COPY", r + "3", c2, "DB", 1)
    exact("SELECT", 1)
    exact("HPEXPIRETIME", c2, "FIELDS", 2, "a", "b")
    add("pairs", "HGETALL", c2)
    exact("SELECT", 0)
    exact("MOVE", c1, 1)
    exact("EXISTS", c1)
    exact("SELECT", 1)
    exact("HPEXPIRETIME", c1, "FIELDS", 2, "a", "b")
    exact("HGET", c1, "a")
    exact("HPEXPIREAT", c1, FAR_MS + 9, "FIELDS", 1, "b")
    exact("SELECT", 0)
    exact("SWAPDB", 0, 1)
    exact("HPEXPIRETIME", c1, "FIELDS", 2, "a", "b")
    exact("HPEXPIRETIME", r + "3", "FIELDS", 1, "a")
    exact("SWAPDB", 0, 1)
    exact("HPEXPIRETIME", r + "3", "FIELDS", 1, "a")
    exact("EXISTS", c1)
    exact("SELECT", 1)
    exact("FLUSHDB")
    exact("SELECT", 0)

    # DUMP then RESTORE.
    d = p + "dump"
    exact("HSET", d, "a", 1, "b", 2, "c", 3)
    exact("HPEXPIREAT", d, FAR_MS, "FIELDS", 1, "a")
    exact("HPEXPIREAT", d, FAR_MS + 123, "FIELDS", 1, "b")
    add("type", "DUMP", d)
    exact("DEL", d)
    exact("RESTORE", d, 0, DUMPED)
    exact("HPEXPIRETIME", d, "FIELDS", 3, "a", "b", "c")
    add("pairs", "HGETALL", d)
    exact("OBJECT", "ENCODING", d)
    exact("RESTORE", d, 0, DUMPED)
    exact("HPERSIST", d, "FIELDS", 1, "a")
    exact("RESTORE", d, 0, DUMPED, "REPLACE")
    exact("HPEXPIRETIME", d, "FIELDS", 3, "a", "b", "c")
    exact("RESTORE", d + "2", FAR_MS, DUMPED, "ABSTTL")
    exact("PEXPIRETIME", d + "2")
    exact("HPEXPIRETIME", d + "2", "FIELDS", 3, "a", "b", "c")
    exact("HSET", d + "3", "a", 1, "b", 2)
    exact("HPEXPIREAT", d + "3", FAR_MS, "FIELDS", 1, "a")
    exact("HPERSIST", d + "3", "FIELDS", 1, "a")
    add("type", "DUMP", d + "3")
    exact("RESTORE", d + "3r", 0, DUMPED)
    exact("HPEXPIRETIME", d + "3r", "FIELDS", 2, "a", "b")
    add("pairs", "HGETALL", d + "3r")
    exact("OBJECT", "ENCODING", d + "3r")
    add("type", "DUMP", big)
    exact("RESTORE", big + "r", 0, DUMPED)
    exact("HPEXPIRETIME", big + "r", "FIELDS", 4, "f1", "f2", "f3", "f4")
    exact("HLEN", big + "r")
    exact("OBJECT", "ENCODING", big + "r")

    # The key's own TTL beside its fields'.
    kt = p + "keyttl"
    exact("HSET", kt, "a", 1, "b", 2)
    exact("HPEXPIREAT", kt, FAR_MS, "FIELDS", 1, "a")
    exact("PEXPIREAT", kt, FAR_MS + 100000)
    exact("PEXPIRETIME", kt)
    exact("HPEXPIRETIME", kt, "FIELDS", 2, "a", "b")
    exact("PERSIST", kt)
    exact("PEXPIRETIME", kt)
    exact("HPEXPIRETIME", kt, "FIELDS", 1, "a")
    exact("PEXPIREAT", kt, 1)
    exact("EXISTS", kt)
    exact("HPEXPIRETIME", kt, "FIELDS", 1, "a")

    # Every hash read, on fields with far deadlines.
    rd, one = p + "reads", p + "one"
    exact("HSET", rd, "a", 1, "b", 22, "c", 333)
    exact("HPEXPIREAT", rd, FAR_MS, "FIELDS", 2, "a", "b")
    exact("HGET", rd, "a")
    exact("HGET", rd, "zz")
    exact("HMGET", rd, "a", "b", "c", "zz")
    exact("HEXISTS", rd, "a")
    exact("HEXISTS", rd, "zz")
    exact("HSTRLEN", rd, "b")
    exact("HSTRLEN", rd, "zz")
    exact("HLEN", rd)
    add("pairs", "HGETALL", rd)
    add("unordered", "HKEYS", rd)
    add("unordered", "HVALS", rd)
    exact("TYPE", rd)
    exact("HSET", one, "x", "y")
    exact("HPEXPIREAT", one, FAR_MS, "FIELDS", 1, "x")
    exact("HRANDFIELD", one)
    exact("HRANDFIELD", one, 3)
    exact("HRANDFIELD", one, 2, "WITHVALUES")
    exact("HRANDFIELD", one, -2)
    exact("HRANDFIELD", one, -2, "WITHVALUES")

    # MULTI.
    exact("MULTI")
    exact("HPEXPIREAT", rd, FAR_MS + 7, "FIELDS", 1, "c")
    exact("HPEXPIRETIME", rd, "FIELDS", 1, "c")
    exact("HPERSIST", rd, "FIELDS", 2, "c", "zz")
    exact("EXEC")
    exact("MULTI")
    exact("HEXPIRE", rd, 10)
    exact("HTTL", rd, "FIELDS", 1, "a")
    exact("EXEC")

    # RESP3.
    add("type", "HELLO", 3)
    exact("HEXPIRE", rd, 100, "NX", "FIELDS", 2, "a", "zz")
    exact("HTTL", rd, "FIELDS", 2, "c", "zz")
    exact("HPTTL", nokey, "FIELDS", 1, "a")
    exact("HPEXPIRETIME", rd, "FIELDS", 2, "a", "c")
    exact("HEXPIRETIME", rd, "FIELDS", 1, "b")
    exact("HPERSIST", rd, "FIELDS", 1, "zz")
    exact("HPEXPIREAT", rd, FAR_MS, "FIELDS", 0, "a")
    add("pairs", "HGETALL", rd)
    exact("HMGET", rd, "a", "zz")
    add("type", "HELLO", 2)
    return cases


CASES = pass_cases("lp.", False) + pass_cases("ht.", True) + \
    [(["CONFIG", "SET", "hash-max-listpack-entries", "128"], "exact")]


def view(how, reply):
    """What of `reply` is compared."""
    kind, body = reply
    if how == "type":
        return kind
    if how in ("unordered", "pairs") and kind in (b"*", b"%") and body is not None:
        items = [x[1] for x in body]
        if how == "pairs":
            return (kind, sorted(zip(items[::2], items[1::2])))
        return (kind, sorted(items))
    return reply


def run_cases(port):
    c = Client(port)
    dumped, views = None, []
    for cmd, how in CASES:
        reply = c.command(*[dumped if a == DUMPED else a for a in cmd])
        if cmd[0] == "DUMP":
            dumped = reply[1] if reply[0] == b"$" else None
        views.append(view(how, reply))
    return views


def shown(x, limit=400):
    text = repr(x)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def compare_cases(checks, got, label):
    want = recorded()
    checks.check(len(want) == len(CASES), f"{len(want)} recorded replies for {len(CASES)} cases "
                                         "(record again with --record if CASES changed)")
    differing = [(cmd, w, g) for (cmd, _), w, g in zip(CASES, want, got) if w != g]
    for cmd, w, g in differing[:200]:
        print(f"  {shown(cmd, 200)}:\n    redis 7.4.1: {shown(w)}\n    {label + ':':12} {shown(g)}")
    if len(differing) > 200:
        print(f"  ... and {len(differing) - 200} more")
    checks.check(not differing, f"part A: {len(CASES) - len(differing)} of {len(CASES)} cases "
                                "answered as redis-server 7.4.1 (recorded)")


def start_redis(redis_bin, directory):
    """A redis-server without persistence on `directory`; (port, process)
    once it answers."""
    os.makedirs(directory, exist_ok=True)
    port = free_port()
    proc = subprocess.Popen([redis_bin, "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", directory], stdout=subprocess.DEVNULL)
    Client(port).command("PING")
    return port, proc


def record(redis_bin):
    tmp = tempfile.mkdtemp(prefix="teksdb-hfe-record-")
    port, proc = start_redis(redis_bin, tmp)
    try:
        version = Client(port).command("INFO", "server")[1].split(b"redis_version:")[1].split(b"\r")[0]
        views = run_cases(port)
    finally:
        stop([proc])
        shutil.rmtree(tmp, ignore_errors=True)
    recorded_replies.write(RECORDED, "server_hash_field_expire_test.py", version.decode(), views)
    return 0


def recorded():
    return recorded_replies.read(RECORDED)


# ---------------------------------------------------------------- part B

def items(reply):
    """An array (or map) reply's elements' payloads; None if not one."""
    if reply[0] not in (b"*", b"%") or reply[1] is None:
        return None
    return [x[1] for x in reply[1]]


def as_dict(reply):
    flat = items(reply)
    if flat is None:
        return None
    return {k.decode(): v.decode() for k, v in zip(flat[::2], flat[1::2])}


def ints(reply):
    flat = items(reply)
    if flat is None or any(x[0] != b":" for x in reply[1]):
        return None
    return [int(x) for x in flat]


def hscan_all(c, key, limit=100000):
    """HSCAN from cursor 0 until it is 0 again (at most `limit` calls):
    (fields and values found, calls, whether it ended), or the first reply
    that was not a scan's."""
    cursor, found, calls = b"0", {}, 0
    while True:
        reply = c.command("HSCAN", key, cursor)
        if reply[0] != b"*" or len(reply[1]) != 2:
            return reply, calls, False
        cursor = reply[1][0][1]
        flat = items(reply[1][1])
        found.update((k.decode(), v.decode()) for k, v in zip(flat[::2], flat[1::2]))
        calls += 1
        if cursor == b"0":
            return found, calls, True
        if calls >= limit:
            return found, calls, False


def lazy_reads(checks, c):
    """A field given 100 ms, 300 ms later, on a hash of its own for each
    command (so that each meets it before anything else removed it, if
    nothing did), small and large (140 more fields)."""
    readers = ["hget", "hmget", "hexists", "hstrlen", "hgetall", "hkeys", "hvals", "hscan",
               "hrandfield", "hrandfield-count", "hrandfield-negative", "hrandfield-values", "hincrby",
               "httl", "hpersist", "hpexpire"]
    sizes = {"small": {}, "large": {f"p{i}": str(i) for i in range(140)}}
    set_replies = []
    for size, extra in sizes.items():
        for reader in readers:
            key = f"lazy:{size}:{reader}"
            c.command("HSET", key, "gone", "1", "keep", "2", "other", "3",
                      *[x for kv in extra.items() for x in kv])
            set_replies.append(c.command("HPEXPIRE", key, 100, "FIELDS", 1, "gone"))
    checks.check(all(r == (b"*", [(b":", b"1")]) for r in set_replies),
                 f"part B: HPEXPIRE 100 FIELDS 1 gone: [1] on each hash ({shown(set_replies[0])})")
    time.sleep(0.3)
    nil = (b"$", None)
    for size, extra in sizes.items():
        live = {"keep": "2", "other": "3", **extra}
        key = lambda reader: f"lazy:{size}:{reader}"  # noqa: E731
        what = f"part B ({size} hash, 300 ms after HPEXPIRE 100):"
        got = c.command("HGET", key("hget"), "gone")
        checks.check(got == nil, f"{what} HGET of the field: nil ({got})")
        got = c.command("HMGET", key("hmget"), "gone", "keep")
        checks.check(got == (b"*", [nil, (b"$", b"2")]), f"{what} HMGET gone keep: [nil, 2] ({got})")
        got = c.command("HEXISTS", key("hexists"), "gone")
        checks.check(got == (b":", b"0"), f"{what} HEXISTS: 0 ({got})")
        got = c.command("HSTRLEN", key("hstrlen"), "gone")
        checks.check(got == (b":", b"0"), f"{what} HSTRLEN: 0 ({got})")
        got = as_dict(c.command("HGETALL", key("hgetall")))
        checks.check(got == live, f"{what} HGETALL: the other fields only ({shown(got, 200)})")
        got = items(c.command("HKEYS", key("hkeys")))
        checks.check(got is not None and sorted(x.decode() for x in got) == sorted(live),
                     f"{what} HKEYS: the other fields only ({shown(got, 200)})")
        got = items(c.command("HVALS", key("hvals")))
        checks.check(got is not None and sorted(x.decode() for x in got) == sorted(live.values()),
                     f"{what} HVALS: the other values only ({shown(got, 200)})")
        found, calls, ended = hscan_all(c, key("hscan"))
        checks.check(ended and found == live,
                     f"{what} HSCAN: the other fields only ({calls} calls; {shown(found, 200)})")
        got = c.command("HRANDFIELD", key("hrandfield"))
        checks.check(got[0] == b"$" and got[1] is not None and got[1].decode() in live,
                     f"{what} HRANDFIELD: another field ({got})")
        got = items(c.command("HRANDFIELD", key("hrandfield-count"), 1000))
        checks.check(got is not None and sorted(x.decode() for x in got) == sorted(live),
                     f"{what} HRANDFIELD 1000: every other field once ({shown(got, 200)})")
        got = items(c.command("HRANDFIELD", key("hrandfield-negative"), -300))
        checks.check(got is not None and len(got) == 300 and all(x.decode() in live for x in got),
                     f"{what} HRANDFIELD -300: 300 of the other fields ({shown(got, 200)})")
        got = as_dict(c.command("HRANDFIELD", key("hrandfield-values"), 1000, "WITHVALUES"))
        checks.check(got == live, f"{what} HRANDFIELD 1000 WITHVALUES: the others ({shown(got, 200)})")
        got = c.command("HINCRBY", key("hincrby"), "gone", 7)
        after = c.command("HPEXPIRETIME", key("hincrby"), "FIELDS", 1, "gone")
        checks.check(got == (b":", b"7") and ints(after) == [-1],
                     f"{what} HINCRBY 7 starts the field again at 7, without a deadline ({got}, {after})")
        got = c.command("HTTL", key("httl"), "FIELDS", 2, "gone", "keep")
        checks.check(ints(got) == [-2, -1], f"{what} HTTL gone keep: [-2, -1] ({got})")
        got = c.command("HPERSIST", key("hpersist"), "FIELDS", 2, "gone", "keep")
        checks.check(ints(got) == [-2, -1], f"{what} HPERSIST gone keep: [-2, -1] ({got})")
        got = c.command("HPEXPIRE", key("hpexpire"), 100000, "FIELDS", 2, "gone", "keep")
        checks.check(ints(got) == [-2, 1], f"{what} HPEXPIRE 100000 gone keep: [-2, 1] ({got})")


def ttl_bounds(checks, c):
    """HTTL, HPTTL, HEXPIRETIME, HPEXPIRETIME against the local clock."""
    c.command("HSET", "ttl", "s", "1", "ms", "2", "none", "3")
    t0 = now_ms()
    set_s = c.command("HEXPIRE", "ttl", 100, "FIELDS", 1, "s")
    set_ms = c.command("HPEXPIRE", "ttl", 10000, "FIELDS", 1, "ms")
    t1 = now_ms()
    httl = ints(c.command("HTTL", "ttl", "FIELDS", 3, "s", "ms", "none"))
    hpttl = ints(c.command("HPTTL", "ttl", "FIELDS", 3, "s", "ms", "none"))
    t2 = now_ms()
    hexpiretime = ints(c.command("HEXPIRETIME", "ttl", "FIELDS", 3, "s", "ms", "none"))
    hpexpiretime = ints(c.command("HPEXPIRETIME", "ttl", "FIELDS", 3, "s", "ms", "none"))
    took = t2 - t0 + 5
    checks.check(ints(set_s) == [1] and ints(set_ms) == [1], f"part B: HEXPIRE 100, HPEXPIRE 10000: [1] "
                                                             f"({set_s}, {set_ms})")
    checks.check(httl is not None and (100000 - took) // 1000 <= httl[0] <= 100 and
                 (10000 - took) // 1000 <= httl[1] <= 10 and httl[2] == -1,
                 f"part B: HTTL of 100 s, 10000 ms, none: [~100, ~10, -1] ({httl}, {took} ms)")
    checks.check(hpttl is not None and 100000 - took <= hpttl[0] <= 100000 and
                 10000 - took <= hpttl[1] <= 10000 and hpttl[2] == -1,
                 f"part B: HPTTL: [~100000, ~10000, -1] ({hpttl}, {took} ms)")
    checks.check(hexpiretime is not None and (t0 + 100000) // 1000 <= hexpiretime[0] <= (t1 + 100000) // 1000 + 1
                 and (t0 + 10000) // 1000 <= hexpiretime[1] <= (t1 + 10000) // 1000 + 1 and hexpiretime[2] == -1,
                 f"part B: HEXPIRETIME: now + 100 s, now + 10 s, -1 ({hexpiretime}, now {t0 // 1000})")
    checks.check(hpexpiretime is not None and t0 + 100000 - 2 <= hpexpiretime[0] <= t1 + 100000 + 2 and
                 t0 + 10000 - 2 <= hpexpiretime[1] <= t1 + 10000 + 2 and hpexpiretime[2] == -1,
                 f"part B: HPEXPIRETIME: now + 100000, now + 10000, -1 ({hpexpiretime}, now {t0})")


def read_events(sub, quiet=0.5):
    """The (event, key) of the messages `sub` got, until none came for
    `quiet` seconds."""
    events = []
    while b"\r\n" in sub.buf or select.select([sub.sock], [], [], quiet)[0]:
        kind, body = sub.reply()
        if kind in (b"*", b">") and len(body) == 3 and body[0][1] == b"message":
            events.append((body[1][1].decode().split(":", 1)[1], body[2][1].decode()))
    return events


def active_expiry(checks, c, port, rng):
    """Hashes nobody reads whose every field has 100-300 ms are deleted by
    the server itself, with their keyspace events."""
    names = ["hexpired", "del", "hexpire", "hpersist", "hdel"]
    c.command("FLUSHALL")
    sub = Client(port)
    sub.sock.sendall(b"".join(Client.encode(["SUBSCRIBE", f"__keyevent@0__:{n}"]) for n in names))
    confirmed = [sub.reply() for _ in names]
    checks.check(all(r[0] == b"*" and r[1][0][1] == b"subscribe" for r in confirmed),
                 "part B: SUBSCRIBE to __keyevent@0__:hexpired, del, hexpire, hpersist, hdel")
    checks.check(c.command("CONFIG", "SET", "notify-keyspace-events", "KEA") == (b"+", b"OK"),
                 "part B: CONFIG SET notify-keyspace-events KEA")
    volatile = [f"active:{i}" for i in range(12)] + ["active:big"]
    replies = []
    for i, key in enumerate(volatile[:-1]):
        fields = [f"f{j}" for j in range(1 + i % 6)]
        c.command("HSET", key, *[x for f in fields for x in (f, "v")])
        for f in fields:
            replies.append(c.command("HPEXPIRE", key, rng.randint(100, 300), "FIELDS", 1, f))
    c.command("HSET", "active:big", *[x for j in range(140) for x in (f"f{j}", "v")])
    replies.append(c.command("HPEXPIRE", "active:big", 200, "FIELDS", 140, *[f"f{j}" for j in range(140)]))
    c.command("HSET", "mixed", "keep", "1", "stay", "2", "gone", "3")
    replies.append(c.command("HPEXPIRE", "mixed", 150, "FIELDS", 1, "gone"))
    checks.check(all(r[0] == b"*" and all(x == (b":", b"1") for x in r[1]) for r in replies),
                 f"part B: HPEXPIRE 100..300 ms on every field of {len(volatile)} hashes and one of "
                 f"'mixed': all 1 ({shown(replies[-1])})")
    c.command("HSET", "persisted", "a", "1")
    persisted = (c.command("HPEXPIRE", "persisted", 100000, "FIELDS", 1, "a"),
                 c.command("HPERSIST", "persisted", "FIELDS", 1, "a"))
    c.command("HSET", "pastdel", "a", "1", "b", "2")
    past = (c.command("HPEXPIREAT", "pastdel", 1, "FIELDS", 1, "a"),
            c.command("HPEXPIREAT", "pastdel", 1, "FIELDS", 1, "b"))
    checks.check([ints(r) for r in persisted + past] == [[1], [1], [2], [2]],
                 f"part B: HPEXPIRE then HPERSIST, and two past HPEXPIREATs: [1] [1] [2] [2] "
                 f"({persisted}, {past})")
    last_deadline = time.time() + 0.3
    time.sleep(0.4)
    # DBSIZE reads no hash: the only ones left must be 'mixed' and 'persisted'.
    gone = wait_for(lambda: c.command("DBSIZE") == (b":", b"2"), 5)
    took = time.time() - last_deadline
    checks.check(gone, f"part B: the {len(volatile)} hashes whose every field expired, never read, "
                       f"deleted by active expiry within 5 s (DBSIZE 2 {took:.1f} s after the last "
                       f"deadline; {c.command('DBSIZE')})")
    events = read_events(sub)
    by_name = {n: [key for name, key in events if name == n] for n in names}

    def keys_of(name, want, what):
        got = set(by_name[name])
        checks.check(got == want, f"part B: {what} (missing: {sorted(want - got)}, not wanted: "
                                  f"{sorted(got - want)})")

    keys_of("hexpired", set(volatile) | {"mixed"}, "an hexpired event for each expired hash and 'mixed'")
    keys_of("del", set(volatile) | {"pastdel"}, "a del event for each of them and 'pastdel' "
                                               "(past times), none for 'mixed'")
    order = [key for key in volatile
             if ("hexpired", key) not in events or ("del", key) not in events or
             events.index(("hexpired", key)) > events.index(("del", key))]
    checks.check(not order, f"part B: each hash's hexpired event before its del ({order})")
    keys_of("hexpire", set(volatile) | {"mixed", "persisted"},
            "an hexpire event for each HPEXPIRE that set a deadline, none for past times")
    checks.check(by_name["hpersist"] == ["persisted"], f"part B: one hpersist event ({by_name['hpersist']})")
    checks.check(by_name["hdel"] == ["pastdel", "pastdel"],
                 f"part B: an hdel event for each HPEXPIREAT to a past time, deleting a field "
                 f"({by_name['hdel']})")
    exists = [c.command("EXISTS", key) for key in volatile]
    checks.check(all(r == (b":", b"0") for r in exists), "part B: EXISTS 0 for each of them")
    got = as_dict(c.command("HGETALL", "mixed"))
    checks.check(got == {"keep": "1", "stay": "2"}, f"part B: 'mixed' keeps its other fields ({got})")
    got = (as_dict(c.command("HGETALL", "persisted")), ints(c.command("HPTTL", "persisted", "FIELDS", 1, "a")))
    checks.check(got == ({"a": "1"}, [-1]), f"part B: 'persisted' kept, no deadline ({got})")
    c.command("CONFIG", "SET", "notify-keyspace-events", "")
    sub.sock.close()


def mostly_expired_scan(checks, c):
    """A 1000-field hash whose 999 fields expired: HSCAN ends, with the one
    field left."""
    c.command("HSET", "thousand", *[x for i in range(1, 1001) for x in (f"field{i}", f"value{i}")])
    got = c.command("HPEXPIRE", "thousand", 100, "FIELDS", 999, *[f"field{i}" for i in range(2, 1001)])
    checks.check(ints(got) == [1] * 999, f"part B: HPEXPIRE 100 on 999 of 1000 fields: 999 ones "
                                         f"({shown(got, 100)})")
    time.sleep(0.3)
    found, calls, ended = hscan_all(c, "thousand")
    checks.check(ended and found == {"field1": "value1"},
                 f"part B: HSCAN over the 1000-field hash 300 ms later ends ({calls} calls) with "
                 f"field1 only ({shown(found, 200)})")


def one_ms_ahead(checks, c, rounds=5000):
    """HPEXPIRE of 1 ms sets a deadline ahead of the command's own time
    (1), never one already past (2): the command reads the clock once, as
    Redis's command time (two reads a few microseconds apart straddle a
    millisecond now and then)."""
    c.command("HSET", "oneahead", *[x for i in range(20) for x in (f"f{i}", i)])
    replies = [c.command("HPEXPIRE", "oneahead", 1, "FIELDS", 1, f"f{i % 20}") for i in range(rounds)]
    past = [r for r in replies if r != (b"*", [(b":", b"1")]) and r != (b"*", [(b":", b"-2")])]
    deleted = sum(r == (b"*", [(b":", b"2")]) for r in replies)
    checks.check(not past and deleted == 0,
                 f"part B: {rounds} HPEXPIRE 1 ms each set a deadline ahead (1), never deleted "
                 f"the field as past (2): {deleted} deleted" + (f", {past[:3]}" if past else ""))
    c.command("DEL", "oneahead")


def live_part(checks, port, rng):
    c = Client(port)
    c.command("FLUSHALL")
    one_ms_ahead(checks, c)
    lazy_reads(checks, c)
    ttl_bounds(checks, c)
    active_expiry(checks, c, port, rng)
    mostly_expired_scan(checks, c)


# ---------------------------------------------------------------- part C

MARGIN_MS = 150
GHOST = 0          # a deadline long past: the field is gone, but may still be stored
UNKNOWN = "unknown"
FIELDS = [f"f{i}" for i in range(8)]
HASHES = [f"m{i}" for i in range(50)]
PADDED = 10        # hashes m0..m9 hold PADS more fields, never touched (hashtables in Redis)
PADS = 130
INTEGER = re.compile(r"-?[1-9][0-9]*|0")


class Model:
    """Each hash's fields: field -> [value, deadline], deadline None (none),
    an absolute time in ms (GHOST once known gone), or UNKNOWN. A field
    not in its hash is certainly not stored."""

    def __init__(self, rng):
        self.rng = rng
        self.hashes = {key: {} for key in HASHES}
        self.asserted = self.mismatches = self.uncertain = 0

    def state(self, fs, tb, ta):
        """"absent", "gone" (past its deadline; maybe still stored),
        "alive" or "uncertain", for a command the server ran between the
        local times tb and ta."""
        if fs is None:
            return "absent"
        deadline = fs[1]
        if deadline is None:
            return "alive"
        if deadline is not UNKNOWN and deadline < tb - MARGIN_MS:
            return "gone"
        if deadline is not UNKNOWN and deadline > ta + MARGIN_MS:
            return "alive"
        self.uncertain += 1
        return "uncertain"

    def expect(self, ok, cmd, reply, wanted):
        self.asserted += 1
        if ok:
            return
        self.mismatches += 1
        if self.mismatches <= 20:
            print(f"  mismatch: {shown(cmd, 200)}\n    got {shown(reply)}\n    model: {shown(wanted)}")

    def run(self, c, cmd):
        tb = now_ms()
        reply = c.command(*cmd)
        return reply, tb, now_ms()

    def hset(self, c, key, pairs):
        h = self.hashes[key]
        cmd = ["HSET", key, *[x for kv in pairs for x in kv]]
        reply, tb, ta = self.run(c, cmd)
        states = [self.state(h.get(f), tb, ta) for f, _ in pairs]
        lo = states.count("absent")
        hi = lo + states.count("gone") + states.count("uncertain")
        self.expect(reply[0] == b":" and lo <= int(reply[1]) <= hi, cmd, reply, f"{lo}..{hi} new fields")
        for f, v in pairs:
            h[f] = [v, None]

    def hdel(self, c, key, fields):
        h = self.hashes[key]
        cmd = ["HDEL", key, *fields]
        reply, tb, ta = self.run(c, cmd)
        states = [self.state(h.get(f), tb, ta) for f in fields]
        lo = states.count("alive")
        hi = lo + states.count("gone") + states.count("uncertain")
        self.expect(reply[0] == b":" and lo <= int(reply[1]) <= hi, cmd, reply, f"{lo}..{hi} deleted")
        for f in fields:
            h.pop(f, None)

    @staticmethod
    def outcomes(old, when, cond, tb, ta):
        """What HPEXPIREAT `when` `cond` answers for a stored field whose
        deadline is `old`."""
        if old is UNKNOWN:
            return {0, 1, 2}
        if old is None:
            met = cond not in ("XX", "GT")
        else:
            met = not (cond == "NX" or (cond == "GT" and old >= when) or (cond == "LT" and old <= when))
        if not met:
            return {0}
        if when <= tb - MARGIN_MS:
            return {2}
        if when > ta + MARGIN_MS:
            return {1}
        return {1, 2}

    def ints_for(self, cmd, reply, fields, h):
        """The integers of a reply with one per field; None (a mismatch
        counted, the fields' deadlines no longer known) if it is not that."""
        got = ints(reply)
        if got is None or len(got) != len(fields):
            self.expect(False, cmd, reply, f"an array of {len(fields)} integers")
            for f in fields:
                if f in h:
                    h[f][1] = UNKNOWN
            return None
        return got

    def hpexpireat(self, c, key, when, cond, fields):
        h = self.hashes[key]
        cmd = ["HPEXPIREAT", key, when, *([cond] if cond else []), "FIELDS", len(fields), *fields]
        reply, tb, ta = self.run(c, cmd)
        got = self.ints_for(cmd, reply, fields, h)
        if got is None:
            return reply
        for f, r in zip(fields, got):
            fs = h.get(f)
            state = self.state(fs, tb, ta)
            if state == "absent":
                self.expect(r == -2, cmd, reply, f"{f}: no such field (-2)")
                continue
            allowed = self.outcomes(fs[1], when, cond, tb, ta)
            if state != "alive":
                allowed = allowed | {-2}
            self.expect(r in allowed, cmd, reply, f"{f} {state} ({fs}): one of {sorted(allowed)}")
            if r == 1:
                fs[1] = when
            elif r == 2:
                del h[f]
            elif r == -2:
                fs[1] = GHOST
        return reply

    def hpersist(self, c, key, fields):
        h = self.hashes[key]
        cmd = ["HPERSIST", key, "FIELDS", len(fields), *fields]
        reply, tb, ta = self.run(c, cmd)
        got = self.ints_for(cmd, reply, fields, h)
        if got is None:
            return
        for f, r in zip(fields, got):
            fs = h.get(f)
            state = self.state(fs, tb, ta)
            if state in ("absent", "gone"):
                allowed = {-2}
            elif state == "alive":
                allowed = {-1} if fs[1] is None else {1}
            else:
                allowed = {1, -1, -2} if fs[1] is UNKNOWN else {1, -2}
            self.expect(r in allowed, cmd, reply, f"{f} {state} ({fs}): one of {sorted(allowed)}")
            if fs is None:
                continue
            if r in (1, -1):
                fs[1] = None
            elif r == -2 and state != "gone":
                fs[1] = GHOST

    def hincrby(self, c, key, f, by):
        h = self.hashes[key]
        cmd = ["HINCRBY", key, f, by]
        reply, tb, ta = self.run(c, cmd)
        fs = h.get(f)
        state = self.state(fs, tb, ta)
        kept = None if fs is None else int(fs[0]) + by if INTEGER.fullmatch(fs[0]) else "error"
        new = by
        allowed = {new} if state in ("absent", "gone") else {kept} if state == "alive" else {kept, new}
        got = "error" if reply[0] == b"-" else int(reply[1]) if reply[0] == b":" else reply
        self.expect(got in allowed, cmd, reply, f"{f} {state} ({fs}): one of {allowed}")
        if got == "error" or not isinstance(got, int):
            return
        if state in ("absent", "gone"):
            h[f] = [str(got), None]
        elif state == "alive":
            fs[0] = str(got)
        elif kept == new:
            h[f] = [str(got), UNKNOWN]
        elif got == new:
            h[f] = [str(got), None]
        else:
            fs[0] = str(got)

    def hget(self, c, key, f):
        cmd = ["HGET", key, f]
        reply, tb, ta = self.run(c, cmd)
        fs = self.hashes[key].get(f)
        state = self.state(fs, tb, ta)
        if state == "alive":
            self.expect(reply == (b"$", fs[0].encode()), cmd, reply, fs)
        elif state in ("absent", "gone"):
            self.expect(reply == (b"$", None), cmd, reply, f"{state} ({fs})")

    def hexists(self, c, key, f):
        cmd = ["HEXISTS", key, f]
        reply, tb, ta = self.run(c, cmd)
        fs = self.hashes[key].get(f)
        state = self.state(fs, tb, ta)
        if state != "uncertain":
            want = (b":", b"1" if state == "alive" else b"0")
            self.expect(reply == want, cmd, reply, f"{state} ({fs})")

    def hpexpiretime(self, c, key, fields):
        cmd = ["HPEXPIRETIME", key, "FIELDS", len(fields), *fields]
        reply, tb, ta = self.run(c, cmd)
        got = ints(reply)
        if got is None or len(got) != len(fields):
            return self.expect(False, cmd, reply, f"an array of {len(fields)} integers")
        for f, r in zip(fields, got):
            fs = self.hashes[key].get(f)
            state = self.state(fs, tb, ta)
            if state == "alive":
                self.expect(r == (-1 if fs[1] is None else fs[1]), cmd, reply, f"{f}: {fs}")
            elif state in ("absent", "gone"):
                self.expect(r == -2, cmd, reply, f"{f} {state} ({fs}): -2")

    def hgetall(self, c, key):
        cmd = ["HGETALL", key]
        reply, tb, ta = self.run(c, cmd)
        got = as_dict(reply)
        if got is None:
            return self.expect(False, cmd, reply, "an array")
        h = self.hashes[key]
        for f in set(got) | set(h):
            fs = h.get(f)
            state = self.state(fs, tb, ta)
            if state == "alive":
                self.expect(got.get(f) == fs[0], cmd, f"{f}: {got.get(f)}", fs)
            elif state in ("absent", "gone"):
                self.expect(f not in got, cmd, f"{f}: {got.get(f)}", f"{state} ({fs})")

    def random_deadline(self):
        now, r = now_ms(), self.rng.random()
        if r < 0.65:
            return now + self.rng.randint(0, 2000)
        if r < 0.75:
            return now - self.rng.randint(1, 3000)
        if r < 0.8:
            return 1000
        if r < 0.9:
            return now + self.rng.randint(2000, 4000)
        return FAR_MS + self.rng.randint(0, 10 ** 6)

    def random_value(self):
        if self.rng.random() < 0.5:
            return str(self.rng.randint(-1000, 1000))
        return "v" + "".join(self.rng.choice("abcdefgh") for _ in range(self.rng.randint(0, 8)))

    def random_op(self, c):
        rng = self.rng
        key = rng.choice(HASHES)
        some = lambda: rng.sample(FIELDS, rng.randint(1, 3))  # noqa: E731
        op = rng.choices(["hset", "hdel", "hpexpireat", "hpersist", "hincrby", "hget", "hgetall",
                          "hexists", "hpexpiretime"], [18, 5, 25, 6, 8, 12, 6, 6, 14])[0]
        if op == "hset":
            self.hset(c, key, [(f, self.random_value()) for f in some()])
        elif op == "hdel":
            self.hdel(c, key, some())
        elif op == "hpexpireat":
            cond = rng.choice([None, None, None, None, "NX", "XX", "GT", "LT"])
            self.hpexpireat(c, key, self.random_deadline(), cond, some())
        elif op == "hpersist":
            self.hpersist(c, key, some())
        elif op == "hincrby":
            self.hincrby(c, key, rng.choice(FIELDS), rng.randint(-50, 50))
        elif op == "hget":
            self.hget(c, key, rng.choice(FIELDS))
        elif op == "hgetall":
            self.hgetall(c, key)
        elif op == "hexists":
            self.hexists(c, key, rng.choice(FIELDS))
        else:
            self.hpexpiretime(c, key, some())

    def fill(self, c):
        c.command("FLUSHALL")
        for i, key in enumerate(HASHES):
            pairs = [(f, self.random_value()) for f in FIELDS if self.rng.random() < 0.6]
            if i < PADDED:
                pairs += [(f"p{j}", str(j)) for j in range(PADS)]
            if pairs:
                self.hset(c, key, pairs)

    def settle(self):
        """Sleeps until every deadline before the year 2100 passed."""
        near = [fs[1] for h in self.hashes.values() for fs in h.values()
                if isinstance(fs[1], int) and fs[1] < FAR_MS]
        wait = (max(near, default=0) + MARGIN_MS + 50 - now_ms()) / 1000
        if wait > 0:
            time.sleep(wait)

    def check_all(self, c):
        """Every hash and every field's deadline against the model."""
        for key in HASHES:
            self.hgetall(c, key)
            self.hpexpiretime(c, key, FIELDS)

    def deadlines(self, c, far, near_ms):
        """HPEXPIREAT on alive fields: a far deadline on about `far` of
        them, now + near_ms on about as many."""
        for key, h in self.hashes.items():
            for f in FIELDS:
                now = now_ms()
                if self.state(h.get(f), now, now) != "alive":
                    continue
                r = self.rng.random()
                if r < far:
                    self.hpexpireat(c, key, FAR_MS + self.rng.randint(0, 10 ** 6), None, [f])
                elif r < 2 * far:
                    self.hpexpireat(c, key, now_ms() + self.rng.randint(*near_ms), None, [f])


def model_part(checks, port, rng, ops=4000, pace=0.004):
    """Part C's random ops; returns the model."""
    model = Model(rng)
    c = Client(port)
    model.fill(c)
    started = time.time()
    for i in range(ops):
        model.random_op(c)
        time.sleep(pace)
        # Flushes along the way (SAVE: teksdb-server flushes its memtables
        # to SST files; Redis writes its RDB), so deadlines are read back
        # from files too.
        if i % 1000 == 999:
            checks.check(c.command("SAVE") == (b"+", b"OK"), f"part C: SAVE after op {i + 1}")
    took = time.time() - started
    model.settle()
    model.check_all(c)
    checks.check(model.mismatches == 0,
                 f"part C: {ops} random ops in {took:.1f} s, then every hash once every deadline "
                 f"passed: {model.mismatches} mismatches of {model.asserted} replies asserted "
                 f"({model.uncertain} times a field was too near its deadline to tell)")
    return model


class Reconnecting:
    """A connection that connects again when the server closed it (a
    replica closes its connections to swap in its first full sync)."""

    def __init__(self, port):
        self.port, self.client = port, Client(port)

    def command(self, *args):
        for attempt in range(50):
            try:
                return self.client.command(*args)
            except (ConnectionError, OSError):
                if attempt == 49:
                    raise
                time.sleep(0.1)
                self.client = Client(self.port)


FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support", "fixtures",
                       "redis74_hash_field_deadlines.rdb")


def rdb_import(checks, server_bin, port):
    """Part D (teksdb-server only): teksdb-rdb-import of an RDB file
    redis-server 7.4.1 wrote (FIXTURE, RDB version 12; with
    hash-max-listpack-entries 4: "small", HSET a 1 b 2 c 3 and HPEXPIREAT
    4102444800000 of a, a listpackex; "big", f1..f6 and HPEXPIREAT
    4102444900000 of f1 and f2, a hashtable with field deadlines
    (RDB_TYPE_HASH_METADATA); "persisted", one field whose deadline
    HPERSIST took, a listpackex without any): the deadlines as Redis had
    them."""
    importer = os.path.join(os.path.dirname(os.path.abspath(server_bin)), "teksdb-rdb-import")
    done = subprocess.run([importer, "--port", str(port), FIXTURE], capture_output=True, text=True)
    checks.check(done.returncode == 0, f"part D: teksdb-rdb-import of {os.path.basename(FIXTURE)}: "
                                       f"exit {done.returncode} {done.stderr[-300:]}")
    c = Client(port)
    got = [c.command("HPEXPIRETIME", "small", "FIELDS", 3, "a", "b", "c"),
           c.command("HPEXPIRETIME", "big", "FIELDS", 3, "f1", "f2", "f3"),
           c.command("HPEXPIRETIME", "persisted", "FIELDS", 1, "p"),
           c.command("OBJECT", "ENCODING", "small"), c.command("OBJECT", "ENCODING", "persisted"),
           c.command("HLEN", "big"), c.command("HGET", "small", "a")]
    want = [(b"*", [(b":", b"4102444800000"), (b":", b"-1"), (b":", b"-1")]),
            (b"*", [(b":", b"4102444900000"), (b":", b"4102444900000"), (b":", b"-1")]),
            (b"*", [(b":", b"-1")]), (b"$", b"listpackex"), (b"$", b"listpackex"), (b":", b"6"),
            (b"$", b"1")]
    checks.check(got == want, "part D: the imported hashes keep redis-server 7.4.1's field "
                              f"deadlines and encodings" + ("" if got == want else f": {got}"))


def replication_info(c):
    text = c.command("INFO", "replication")[1].decode()
    return dict(line.split(":", 1) for line in text.splitlines() if ":" in line)


def in_sync(primary, replica, seconds=30):
    return wait_for(lambda: replication_info(replica).get("master_link_status") == "up" and
                    replication_info(replica).get("slave_repl_offset") ==
                    replication_info(primary).get("master_repl_offset"), seconds, 0.1)


def restart_and_replica(checks, server_bin, directory, proc, port, model):
    """teksdb-server only: values and deadlines survive a restart; a
    replica ends up with the primary's hashes."""
    c = Client(port)
    before = model.mismatches
    model.deadlines(c, 0.3, (300, 800))
    stop([proc])
    port, proc = checks.start_server(server_bin, directory)
    procs = [proc]
    try:
        c = Client(port)
        model.settle()
        model.check_all(c)
        checks.check(model.mismatches == before,
                     f"part C: after a restart on the same directory, every value and deadline "
                     f"kept, the fields whose deadline passed meanwhile gone "
                     f"({model.mismatches - before} mismatches)")
        before = model.mismatches
        model.deadlines(c, 0.15, (1500, 2500))
        replica_port, replica_proc = checks.start_server(
            server_bin, directory + "-replica", "--replicaof", "127.0.0.1", str(port))
        procs.append(replica_proc)
        replica = Reconnecting(replica_port)
        synced = in_sync(c, replica)
        model.deadlines(c, 0.15, (200, 600))
        model.settle()
        synced = synced and in_sync(c, replica)
        checks.check(synced, "part C: the replica is in sync (master_link_status up, offsets equal)")
        differing = []
        for key in HASHES:
            want, got = as_dict(c.command("HGETALL", key)), as_dict(replica.command("HGETALL", key))
            if want != got:
                differing.append((key, want, got))
            want = c.command("HPEXPIRETIME", key, "FIELDS", len(FIELDS), *FIELDS)
            got = replica.command("HPEXPIRETIME", key, "FIELDS", len(FIELDS), *FIELDS)
            if want != got:
                differing.append((key, want, got))
        for key, want, got in differing[:10]:
            print(f"  {key}:\n    primary: {shown(want)}\n    replica: {shown(got)}")
        checks.check(not differing, f"part C: the replica's HGETALL and HPEXPIRETIME of each of "
                                    f"{len(HASHES)} hashes as the primary's, after the deadlines passed "
                                    f"({len(differing)} differ)")
        model.check_all(replica)
        checks.check(model.mismatches == before, f"part C: deadlines set before and after the "
                                                 f"replica's sync, then the replica's hashes as the "
                                                 f"model's ({model.mismatches - before} mismatches)")
    finally:
        stop(procs)


# ---------------------------------------------------------------- main

def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("server", nargs="?", help="teksdb-server")
    parser.add_argument("--record", metavar="REDIS_SERVER", help="record CASES' replies from this 7.4.1")
    parser.add_argument("--redis", metavar="REDIS_SERVER", help="run against this redis-server 7.4.1")
    parser.add_argument("--seed", type=int, help="part C's seed")
    args = parser.parse_args()
    if args.record:
        return record(args.record)
    if not args.redis and not args.server:
        parser.error("a teksdb-server, --record or --redis")
    checks = Checks("server_hash_field_expire")
    tmp = tempfile.mkdtemp(prefix="teksdb-hfe-")
    seed = args.seed if args.seed is not None else random.randrange(1 << 31)
    print(f"seed {seed} (again: --seed {seed})")
    label = "redis" if args.redis else "teksdb"

    def start(name):
        directory = os.path.join(tmp, name)
        if args.redis:
            return start_redis(args.redis, directory)
        return checks.start_server(args.server, directory)

    def part(name, body):
        port, proc = start(name)
        procs = [proc]
        try:
            body(port, proc, procs)
        except Exception:  # noqa: BLE001 (the next parts still run)
            traceback.print_exc()
            checks.check(False, f"part {name.upper()} ended with the exception above")
        finally:
            stop(procs)

    part("a", lambda port, proc, procs: compare_cases(checks, run_cases(port), label))
    part("b", lambda port, proc, procs: live_part(checks, port, random.Random(seed)))

    def part_c(port, proc, procs):
        model = model_part(checks, port, random.Random(seed))
        if not args.redis:
            procs.clear()
            restart_and_replica(checks, args.server, os.path.join(tmp, "c"), proc, port, model)

    part("c", part_c)
    if not args.redis:
        part("d", lambda port, proc, procs: rdb_import(checks, args.server, port))
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
