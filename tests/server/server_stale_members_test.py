#!/usr/bin/env python3
"""teksdb-server's versioned collections (server/storage/storage_format.h), through
the protocol, with write buffers so small that flushes and compactions run
all the time (the stale member filter removing records as the test reads):
  - a collection deleted (DEL), replaced (SET, another type), expired or
    expired and swept, then created again, shows only its new members, for
    hashes, sets, sorted sets and lists;
  - RENAME moves a collection in one write: its members stay through
    compactions under the new name, the replaced collection's go;
  - LINSERT and LREM (which rewrite a list under a new version), LTRIM and
    LSET: the list reads as edited, also after compactions;
  - DEL of a 100,000-field hash is one write: replied at once, and no read
    after it sees a member, also after the compactions that remove them;
  - one client deleting and re-creating a hash generation after generation
    while others read it: every read sees one whole generation or nothing,
    never a member of an older one;
  - lists in chunks of 4 (list-max-listpack-size 4): one client pushing
    and popping a queue while others read it whole, and its ends, without
    the key's lock: every read sees the queue as one write left it;
  - INFO counts the records the compaction filter removed;
  - a restart keeps the data (the format record is accepted); a database
    of another format is refused at start, naming it;
  - without an OPTIONS file the server's table defaults apply (a bloom
    filter, a block cache of --block-cache-mb), and bad uses of that flag
    are refused.

Usage: server_stale_members_test.py PATH/TO/teksdb-server
"""

import os
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks  # noqa: E402
from resp_client import Client, free_port  # noqa: E402

checks = Checks("server_stale_members")
check = checks.check

# Small memtables and eager compactions: stale records meet the filter
# within the test's lifetime.
OPTIONS = """[Version]
  rocksdb_version=7.8.3
  options_file_version=1.1
[DBOptions]
  create_if_missing=true
[CFOptions "default"]
  write_buffer_size=65536
  level0_file_num_compaction_trigger=2
  target_file_size_base=262144
  max_bytes_for_level_base=1048576
"""


def stop(proc):
    proc.terminate()
    proc.wait(timeout=60)


def members(c, key):
    """What a read of the whole collection at `key` returns, as a sorted list
    (hash: field=value pairs)."""
    kind = c.command("TYPE", key)[1].decode()
    if kind == "hash":
        flat = [x[1].decode() for x in c.command("HGETALL", key)[1]]
        return sorted(f"{flat[i]}={flat[i + 1]}" for i in range(0, len(flat), 2))
    if kind == "set":
        return sorted(x[1].decode() for x in c.command("SMEMBERS", key)[1])
    if kind == "zset":
        return [x[1].decode() for x in c.command("ZRANGE", key, 0, -1)[1]]
    if kind == "list":
        return [x[1].decode() for x in c.command("LRANGE", key, 0, -1)[1]]
    return []


def create(c, kind, key, names):
    if kind == "hash":
        flat = [x for n in names for x in (n, "v")]
        return c.command("HSET", key, *flat)
    if kind == "set":
        return c.command("SADD", key, *names)
    if kind == "zset":
        return c.command("ZADD", key, *[x for i, n in enumerate(names) for x in (i, n)])
    return c.command("RPUSH", key, *names)


def expected(kind, names):
    return sorted(f"{n}=v" for n in names) if kind == "hash" else (
        sorted(names) if kind == "set" else list(names))


def churn(c, n):
    """Writes enough elsewhere to flush memtables and trigger compactions."""
    for i in range(n):
        c.command("SET", f"filler{i % 500}", "x" * 1000)


def run_together(targets, stop_flag, seconds):
    """Runs each of `targets` in a thread of its own for `seconds`, then sets
    `stop_flag` and waits for them all."""
    threads = [threading.Thread(target=t) for t in targets]
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop_flag.set()
    for t in threads:
        t.join()


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-stale-")
    options = os.path.join(tmp, "OPTIONS")
    with open(options, "w") as f:
        f.write(OPTIONS)
    db = os.path.join(tmp, "db")
    port, proc = checks.start_server(server_bin, db, "--rocksdb-options", options)
    try:
        c = Client(port)
        # Lists of more than 4 elements in chunks of 4 (list_store.h), so
        # that the lists below have chunk records under their versions.
        check(c.command("CONFIG", "SET", "list-max-listpack-size", "4") == (b"+", b"OK"),
              "CONFIG SET list-max-listpack-size 4")
        # --- a key's old members never come back -----------------------------
        other_type = {"hash": "set", "set": "zset", "zset": "list", "list": "hash"}
        for kind in ("hash", "set", "zset", "list"):
            for how in ("del", "string", "other-type", "expire", "expire-swept"):
                key = f"{kind}-{how}"
                new = ["new0", "new1"]
                create(c, kind, key, [f"old{i}" for i in range(20)])
                if how == "del":
                    c.command("DEL", key)
                elif how == "string":
                    c.command("SET", key, "a string now")
                    c.command("DEL", key)
                elif how == "other-type":
                    c.command("DEL", key)
                    create(c, other_type[kind], key, [f"other{i}" for i in range(5)])
                    c.command("DEL", key)
                else:
                    c.command("PEXPIRE", key, 1)
                    # Expired: read as absent at once; swept within a few ticks.
                    time.sleep(0.01 if how == "expire" else 0.5)
                create(c, kind, key, new)
                got = members(c, key)
                check(got == expected(kind, new),
                      f"{kind}, {how}, then created again: only the new members ({got})")
        churn(c, 3000)
        for kind in ("hash", "set", "zset", "list"):
            got = members(c, f"{kind}-del")
            check(got == expected(kind, ["new0", "new1"]),
                  f"{kind}: still only the new members after compactions ({got})")

        # --- RENAME moves a collection whole; compactions keep it -------------
        for kind in ("hash", "set", "zset", "list"):
            names = [f"m{i}" for i in range(20)]
            create(c, kind, f"{kind}-src", names)
            create(c, kind, f"{kind}-dst", ["replaced0", "replaced1"])
            check(c.command("RENAME", f"{kind}-src", f"{kind}-dst") == (b"+", b"OK"), f"{kind}: RENAME")
            create(c, kind, f"{kind}-src", ["again"])
            check(c.command("RENAMENX", f"{kind}-src", f"{kind}-dst") == (b":", b"0"),
                  f"{kind}: RENAMENX onto an existing key does nothing")
        churn(c, 3000)
        for kind in ("hash", "set", "zset", "list"):
            got = members(c, f"{kind}-dst")
            check(got == expected(kind, [f"m{i}" for i in range(20)]),
                  f"{kind}: renamed, its members kept by compactions, the replaced ones gone ({got})")
            check(members(c, f"{kind}-src") == expected(kind, ["again"]),
                  f"{kind}: the old name's new collection is its own")

        # --- list edits that rewrite the list under a new version -------------
        c.command("RPUSH", "edited", *[f"e{i}" for i in range(20)])
        c.command("LINSERT", "edited", "BEFORE", "e5", "inserted")
        c.command("LREM", "edited", "0", "e7")
        c.command("LTRIM", "edited", "1", "-2")
        c.command("LSET", "edited", "0", "first")
        want = ["first"] + [f"e{i}" for i in range(2, 5)] + ["inserted", "e5", "e6"] + \
            [f"e{i}" for i in range(8, 19)]
        churn(c, 3000)
        got = members(c, "edited")
        check(got == want, f"LINSERT, LREM, LTRIM, LSET: the list as edited after compactions ({got})")

        # --- DEL of a big hash is one write ------------------------------------
        for start_i in range(0, 100000, 1000):
            c.command("HSET", "big", *[x for i in range(start_i, start_i + 1000)
                                       for x in (f"f{i}", "v")])
        check(c.command("HLEN", "big") == (b":", b"100000"), "a hash of 100,000 fields")
        began = time.time()
        deleted = c.command("DEL", "big")
        took = time.time() - began
        check(deleted == (b":", b"1"), f"DEL of it replies 1 ({took * 1e3:.1f} ms round trip)")
        check(c.command("HLEN", "big") == (b":", b"0") and members(c, "big") == [],
              "no member of the deleted hash is read")
        c.command("HSET", "big", "fresh", "v")
        churn(c, 3000)
        check(members(c, "big") == ["fresh=v"], "re-created: only its own field, after compactions")

        # --- concurrent DEL and HSET, readers never see a mix ------------------
        stop_flag = threading.Event()
        bad = []
        reads = [0]
        generations = [0]

        def writer():
            w = Client(port)
            n = 0
            while not stop_flag.is_set():
                n += 1
                w.command("DEL", "gen")
                w.command("HSET", "gen", f"g{n}a", n, f"g{n}b", n, f"g{n}c", n)
                if n % 7 == 0:
                    w.command("SET", "gen", "string")
                generations[0] = n
                w.command("SET", f"churn{n % 300}", "y" * 2000)

        def reader():
            r = Client(port)
            while not stop_flag.is_set():
                kind, reply = r.command("HGETALL", "gen")
                reads[0] += 1
                if kind == b"-":
                    if not reply.startswith(b"WRONGTYPE"):
                        bad.append(reply)
                    continue
                flat = [x[1].decode() for x in reply]
                fields = sorted(flat[0::2])
                if not fields:
                    continue
                gen = fields[0][1:-1]
                if fields != [f"g{gen}a", f"g{gen}b", f"g{gen}c"] or set(flat[1::2]) != {gen}:
                    bad.append(flat)

        run_together([writer, reader, reader], stop_flag, 8)
        check(not bad and reads[0] > 100 and generations[0] > 100,
              f"{generations[0]} generations, {reads[0]} reads beside them: each read saw one "
              f"whole generation or none ({bad[:3]})")

        # --- a queue in chunks: readers without the key's lock see it whole --
        stop_flag.clear()
        bad.clear()
        reads[0] = 0
        pushed = [0]

        def queue_writer():
            w = Client(port)
            k = 0
            while not stop_flag.is_set():
                k += 1
                batch = [["LPUSH", "queue", str(3 * k - 2), str(3 * k - 1), str(3 * k)],
                         ["RPOP", "queue", "2"]]
                if k % 10 == 0:
                    batch.append(["LSET", "queue", "-1", str(2 * k)])
                    batch.append(["SET", f"churn{k % 300}", "y" * 2000])
                w.pipeline(batch)
                pushed[0] = 3 * k

        def queue_reader(use_index):
            r = Client(port)
            while not stop_flag.is_set():
                if use_index:
                    kind, n = r.command("LLEN", "queue")
                    # The tail first: the head read after it is no lower.
                    tail = r.command("LINDEX", "queue", "-1")[1]
                    head = r.command("LINDEX", "queue", "0")[1]
                    got = [head, tail]
                    if kind != b":" or None in got or int(head) < int(tail):
                        bad.append((n, got))
                    reads[0] += 1
                    continue
                kind, reply = r.command("LRANGE", "queue", "0", "-1")
                reads[0] += 1
                values = [int(x[1]) for x in reply] if kind == b"*" else None
                # Round k pushes 3k-2, 3k-1, 3k in front, then pops the two
                # oldest: the queue counts down by one from 3k to 2k, or to
                # 2k-2 between the push and the pop; a read that mixed two
                # writes would end elsewhere.
                if not values or any(a != b + 1 for a, b in zip(values, values[1:])) or \
                        values[0] % 3 or values[-1] not in (values[0] // 3 * 2, values[0] // 3 * 2 - 2):
                    bad.append((kind, values if values is None else (values[:3], values[-3:])))

        c.command("LPUSH", "queue", "0")
        run_together([queue_writer, lambda: queue_reader(False), lambda: queue_reader(True)],
                     stop_flag, 6)
        length = int(c.command("LLEN", "queue")[1])
        check(not bad and reads[0] > 100 and length > 100,
              f"{pushed[0]} pushed and {pushed[0] + 1 - length} popped in chunks of 4, {reads[0]} "
              f"reads beside them without the key's lock: each saw the queue whole ({bad[:3]})")

        info = c.command("INFO", "stats")[1].decode()
        removed = int(info.split("stale_records_removed:")[1].split()[0])
        check(removed > 100000, f"INFO: the compaction filter removed {removed} stale records")

        # --- restart, and a database of another format -------------------------
        stop(proc)
        _, proc = checks.start_server(server_bin, db, "--rocksdb-options", options, port=port)
        c = Client(port)
        check(members(c, "hash-del") == ["new0=v", "new1=v"], "after a restart the data reads back")
        stop(proc)
        proc = None
        # --- the server's own table defaults, without an OPTIONS file -----------
        plain = os.path.join(tmp, "plain")
        _, proc = checks.start_server(server_bin, plain, "--block-cache-mb", "64")
        stop(proc)
        proc = None
        written = "".join(open(os.path.join(plain, f)).read() for f in os.listdir(plain)
                          if f.startswith("OPTIONS-"))
        rocksdb_log = open(os.path.join(plain, "LOG")).read()
        check("filter_policy=bloomfilter:10:false" in written and
              "capacity : 67108864" in rocksdb_log,
              "without an OPTIONS file: a bloom filter of 10 bits per key, a block cache of "
              "--block-cache-mb")
        for args, why in ((["--block-cache-mb", "64", "--rocksdb-options", options],
                           "--block-cache-mb applies to the server's defaults only"),
                          (["--block-cache-mb", "0"], "'block-cache-mb': must be an integer")):
            run = subprocess.run([server_bin, "--dir", plain, "--port", str(free_port())] + args,
                                 capture_output=True, text=True, timeout=60)
            check(run.returncode != 0 and why in run.stderr,
                  f"{' '.join(args[:2])} refused: {run.stderr.strip()[-200:]}")

        other = os.path.join(tmp, "other")
        made = subprocess.run(["ldb", f"--db={other}", "--create_if_missing", "put",
                               "\xfeformat-of-another-program", "1"], capture_output=True,
                              text=True)
        if made.returncode == 0:
            run = subprocess.run([server_bin, "--dir", other, "--port", str(free_port())],
                                 capture_output=True, text=True, timeout=60)
            check(run.returncode != 0 and "no format record" in run.stderr,
                  f"a database of another program is refused: {run.stderr.strip()[-200:]}")
        else:
            check(False, f"ldb could not write a foreign database: {made.stderr.strip()}")
    finally:
        if proc:
            stop(proc)
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
