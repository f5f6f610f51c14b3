#!/usr/bin/env python3
"""teksdb-server's scripts (EVAL, server/scripting/script_engine.h) across clients and
limits, where the differential test's single stream cannot reach:
  - atomicity: a script that INCRs two keys is never seen half done by a
    reader's MGET, and 4 clients running a read-modify-write script 200
    times each lose no update;
  - busy scripts (server/scripting/running_script.h), with 2 I/O threads and with
    one: past lua-time-limit every other client gets BUSY (MULTI runs,
    EXEC aborts), SCRIPT KILL stops a script even under pcall, what the
    script's own client sends meanwhile runs after it, in order, one that
    wrote is UNKILLABLE and SHUTDOWN without NOSAVE is BUSY; SHUTDOWN
    NOSAVE stops it and the server, its write dropped; SIGTERM stops a
    busy script and the server; under the threshold other clients wait;
    a busy function (FCALL) is stopped by FUNCTION KILL, not SCRIPT KILL,
    and FUNCTION STATS names it; libraries survive a restart;
  - memory: a script that allocates without bound fails, pcall or not,
    and the server serves on;
  - as Redis: a call with 7,999 arguments (unpack) runs; a script's time
    is frozen at its start (a key it set with PX 1 still exists after it
    sleeps; gone once it is over).

Usage: server_scripting_test.py PATH/TO/teksdb-server
"""

import os
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks, stop  # noqa: E402
from resp_client import Client  # noqa: E402

checks = Checks("server_scripting")
check = checks.check

BOTH = "redis.call('incr', KEYS[1]) return redis.call('incr', KEYS[2])"
READ_MODIFY_WRITE = ("local v = tonumber(redis.call('get', KEYS[1]) or '0') "
                     "return redis.call('set', KEYS[1], tostring(v + 1))")


def atomicity(port):
    c, reader = Client(port), Client(port)
    c.command("MSET", "a", "0", "b", "0")
    stop, torn = threading.Event(), []

    def read():
        while not stop.is_set():
            a, b = reader.command("MGET", "a", "b")[1]
            if a != b:
                torn.append((a, b))
    t = threading.Thread(target=read)
    t.start()
    for _ in range(300):
        c.command("EVAL", BOTH, "2", "a", "b")
    stop.set()
    t.join()
    check(not torn and c.command("GET", "b") == (b"$", b"300"),
          f"300 scripts INCRing two keys never seen half done ({torn[:3]})")

    def work():
        w = Client(port)
        for _ in range(200):
            w.command("EVAL", READ_MODIFY_WRITE, "1", "counter")
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    got = Client(port).command("GET", "counter")
    check(got == (b"$", b"800"), f"4 clients x 200 read-modify-write scripts: 800 ({got})")


BUSY = b"BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE."
BUSY_FUNCTION = b"BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE."
LOOP_LIBRARY = "#!lua name=loops\nredis.register_function('loop', function() while true do end end)"
PCALL_LOOP = ("local f = function() while 1 do redis.call('ping') end end "
              "while 1 do pcall(f) end")


def start_script(port, *args):
    """Runs EVAL args on a connection of its own, in a thread; returns
    (thread, result dict: 'reply' once it ends)."""
    c, result = Client(port), {}

    def run():
        try:
            result["reply"] = c.command("EVAL", *args)
        except (ConnectionError, OSError) as e:
            result["reply"] = ("closed", str(e))
    t = threading.Thread(target=run)
    t.start()
    return t, result


def wait_busy(other, busy=BUSY):
    """PINGs until the script running is busy (`busy`), 10 s at most."""
    deadline = time.time() + 10
    while time.time() < deadline:
        got = other.command("PING")
        if got == (b"-", busy):
            return True
        time.sleep(0.02)
    return False


def own_client_waits(port, threads, other):
    """What the busy script's own client sends meanwhile is read while the
    script runs (a read was outstanding: the script started after a batch
    of replies went out), and runs after it, in order."""
    s = Client(port)
    big = "x" * (100 * 1024)  # a reply past one batch: the EVAL runs after a write
    s.sock.sendall(Client.encode(["ECHO", big]) + Client.encode(["EVAL", "while true do end", "0"]))
    check(s.reply() == (b"$", big.encode()), "the reply before the script")
    check(wait_busy(other), f"{threads} I/O threads: busy again")
    s.sock.sendall(Client.encode(["PING"]) + Client.encode(["ECHO", "after"]))
    time.sleep(0.2)  # (read while the script runs, or after: the same replies)
    check(other.command("SCRIPT", "KILL") == (b"+", b"OK"), "SCRIPT KILL")
    got = [s.reply() for _ in range(3)]
    check(got[0][0] == b"-" and b"killed by user" in got[0][1] and
          got[1:] == [(b"+", b"PONG"), (b"$", b"after")],
          f"{threads} I/O threads: the script's client's next commands run after it, in order ({got})")


def busy_and_kill(port, threads):
    """Past lua-time-limit a script makes every other client's command
    BUSY, even with one I/O thread, until SCRIPT KILL stops it, also under
    pcall; one that wrote is UNKILLABLE."""
    other = Client(port)
    check(other.command("CONFIG", "SET", "lua-time-limit", "50") == (b"+", b"OK"),
          "CONFIG SET lua-time-limit")
    check(other.command("CONFIG", "GET", "busy-reply-threshold") == (b"*", [(b"$", b"busy-reply-threshold"),
                                                                          (b"$", b"50")]),
          "busy-reply-threshold is lua-time-limit's other name")
    for body in ("while true do end", PCALL_LOOP):
        t, result = start_script(port, body, "0")
        check(wait_busy(other), f"{threads} I/O threads: other clients get BUSY ({body})")
        check(other.command("GET", "k") == (b"-", BUSY), "a read is BUSY too")
        check(other.command("WATCH", "k") == (b"-", BUSY), "WATCH is BUSY (it needs the keys)")
        check(other.pipeline([["MULTI"], ["SET", "k", "1"], ["EXEC"]]) ==
              [(b"+", b"OK"), (b"-", BUSY),
               (b"-", b"EXECABORT Transaction discarded because of: " + BUSY)],
              "MULTI runs, a queued command is BUSY, EXEC aborts")
        check(other.command("SCRIPT", "KILL") == (b"+", b"OK"), f"SCRIPT KILL ({body})")
        t.join(10)
        reply = result.get("reply")
        check(not t.is_alive() and reply and reply[0] == b"-" and b"killed by user" in reply[1],
              f"the killed script's client is told ({reply})")
        check(other.command("PING") == (b"+", b"PONG"), "the server serves on")
    own_client_waits(port, threads, other)
    check(other.command("SCRIPT", "KILL") == (b"-", b"NOTBUSY No scripts in execution right now."),
          "SCRIPT KILL without a script")
    # A function: FUNCTION KILL stops it, SCRIPT KILL does not, STATS shows it.
    check(other.command("FUNCTION", "LOAD", "REPLACE", LOOP_LIBRARY) == (b"$", b"loops"), "FUNCTION LOAD")
    c, result = Client(port), {}
    t = threading.Thread(target=lambda: result.update(reply=c.command("FCALL", "loop", "0")))
    t.start()
    check(wait_busy(other, BUSY_FUNCTION), f"{threads} I/O threads: a busy function makes others BUSY")
    check(other.command("SCRIPT", "KILL") == (b"-", BUSY_FUNCTION), "SCRIPT KILL does not stop a function")
    stats = other.command("FUNCTION", "STATS")
    check(stats[0] == b"*" and stats[1][1][0] == b"*" and stats[1][1][1][1] == (b"$", b"loop"),
          f"FUNCTION STATS names the running function ({stats})")
    check(other.command("FUNCTION", "KILL") == (b"+", b"OK"), "FUNCTION KILL")
    t.join(10)
    reply = result.get("reply")
    check(not t.is_alive() and reply and b"killed by user" in reply[1] and b"@user_function" in reply[1],
          f"the killed function's client is told ({reply})")
    t, result = start_script(port, "while true do end", "0")
    check(wait_busy(other), "a busy EVAL again")
    check(other.command("FUNCTION", "KILL") == (b"-", BUSY), "FUNCTION KILL does not stop an EVAL")
    check(other.command("FUNCTION", "STATS") == (b"-", BUSY), "FUNCTION STATS under a busy EVAL is BUSY")
    check(other.command("SCRIPT", "KILL") == (b"+", b"OK"), "SCRIPT KILL stops it")
    t.join(10)
    c, result = Client(port), {}

    def exec_with_unkillable_script():
        try:
            result["reply"] = c.pipeline([["MULTI"], ["SET", "before", "1"],
                                          ["EVAL", "redis.call('set', KEYS[1], 'written') while true do end",
                                           "1", "w"],
                                          ["SET", "after", "1"], ["EXEC"], ["SET", "later", "1"]])
        except (ConnectionError, OSError) as e:
            result["reply"] = ("closed", str(e))
    t = threading.Thread(target=exec_with_unkillable_script)
    t.start()
    check(wait_busy(other), "a script that wrote gets busy (inside EXEC)")
    got = other.command("SCRIPT", "KILL")
    check(got[0] == b"-" and got[1].startswith(b"UNKILLABLE"), f"one that wrote is UNKILLABLE ({got})")
    check(other.command("SHUTDOWN") == (b"-", BUSY), "SHUTDOWN without NOSAVE is BUSY")
    return t, result


def shutdown_nosave(port, server, t, result):
    """SHUTDOWN NOSAVE stops the unkillable script and the server; the
    script's write never reaches the database."""
    other = Client(port)
    try:
        other.command("SHUTDOWN", "NOSAVE")
    except (ConnectionError, OSError):
        pass
    t.join(10)
    reply = result.get("reply")
    check(not t.is_alive() and reply is not None and b"OK" not in str(reply[-2:]).encode(),
          f"the script ended, nothing after it acknowledged ({str(reply)[:300]})")
    check(server.wait(30) == 0, "SHUTDOWN NOSAVE stopped the server")


def sigterm_stops_a_script(port, server):
    """SIGTERM stops a busy script (pcall or not) and the server."""
    other = Client(port)
    other.command("CONFIG", "SET", "lua-time-limit", "50")
    t, _ = start_script(port, PCALL_LOOP, "0")
    check(wait_busy(other), "busy before SIGTERM")
    server.terminate()
    t.join(10)
    check(server.wait(30) == 0, "SIGTERM stops the server under a busy script")


def waits_under_the_threshold(port):
    """Before the threshold, another client's write waits for the script
    (then runs after it), as in Redis."""
    other = Client(port)
    other.command("CONFIG", "SET", "lua-time-limit", "5000")
    t, result = start_script(port, "redis.call('set', KEYS[1], 'script') "
                             "local n = 0 while n < 3000000 do n = n + 1 end return n", "1", "order")
    time.sleep(0.05)
    wrote = other.command("SET", "order", "other")
    t.join(30)
    got = other.command("GET", "order")
    check(result.get("reply") == (b":", b"3000000") and wrote == (b"+", b"OK") and got == (b"$", b"other"),
          f"a write under the threshold runs after the script ({result.get('reply')}, {wrote}, {got})")


def memory(port):
    c = Client(port)
    for body in ("local t, i = {}, 0 while true do i = i + 1 t[i] = i end",
                 "local s = 'x' while true do s = s .. s end"):
        got = c.command("EVAL", body, "0")
        check(got[0] == b"-" and b"not enough memory" in got[1], f"an unbounded allocation fails ({got})")
    # (A string doubled past the cap: string.rep of 2 GB reaches it too, but
    # Lua 5.1 appends its unit once per repeat, which took over 10 s of a
    # loaded CPU.)
    got = c.command("EVAL", "local ok = pcall(function() local s = 'x' while true do s = s .. s end end) "
                    "return ok and 'allocated' or 'refused'", "0")
    check(got == (b"$", b"refused"), f"an allocation past the cap fails under pcall too ({got})")
    check(c.command("EVAL", "return 'still here'", "0") == (b"$", b"still here"), "scripts run on")


# Scripts that reach known bugs of Debian's Lua, lua-cjson and lua-bitop, or
# this server's own limits (server/scripting/script_library_guards.h,
# script_msgpack.cc, script_struct.cc): each must fail the script or
# answer, never crash the server. (body, what the reply must contain)
HOSTILE = [
    ("local f = ipairs({}) return f(12345, 0)", b"table expected"),
    ("local f = ipairs({}) return f('abcdefgh', 0)", b"table expected"),
    ("return unpack({}, -2, 2147483647)", b"too many results to unpack"),
    ("return bit.tohex(1, -2147483648) == bit.tohex(1, -8)", b"1"),
    ("return string.find(string.rep('a', 400000), string.rep('a?', 400000))", b"pattern too complex"),
    ("return string.find(string.rep('a?', 5000), string.rep('a?', 5000), 1, true)", b"1"),
    ("return #cjson.encode(string.rep('\\1', 60000000))", b"more than 256 MiB"),
    ("local t = {} t[1] = t for i = 2, 30 do t[i] = t end return cjson.encode(t)", b"ERR"),
    ("local s = string.rep('x', 134217728) local t = {} for i = 1, 8 do t[i] = s end "
     "return #cmsgpack.pack(t)", b"larger than 512 MiB"),
    ("local s = '' for i = 1, 2000 do s = '\\145' .. s end return cmsgpack.unpack(s)", b"Bad data format"),
    ("return {struct.unpack('i0', '')}", b""),
    ("return struct.pack('i8', 1e300) .. struct.pack('I8', 0/0)", b""),
    ("collectgarbage('stop') collectgarbage('setpause', 1000000) return 1", b"1"),
    # (12 rounds: 1.1 GB of garbage, past twice the 512 MiB heap if the
    # collector stayed stopped; 40 ran past the client's 10 s under TSan.)
    ("for i = 1, 12 do local s = 'x' .. i for j = 1, 24 do s = s .. s end end return 'collected'",
     b"collected"),
]


def hostile(port):
    """Each HOSTILE script fails or answers, and the server serves on; an
    earlier script's collector settings do not starve a later one."""
    c = Client(port)
    for body, expected in HOSTILE:
        got = c.command("EVAL", body, "0")
        shown = got[1] if isinstance(got[1], (bytes, type(None))) else got[0]
        check(expected in (shown or b"") or (expected == b"" and got[0] != b"-"),
              f"hostile script handled: {body[:60]!r} -> {str(got)[:160]}")
        check(Client(port).command("PING") == (b"+", b"PONG"), "the server serves on")
    # A RESP3 client with subscriptions may still call commands from a script.
    sub = Client(port)
    sub.command("HELLO", "3")
    sub.command("SUBSCRIBE", "news")
    got = sub.command("EVAL", "redis.call('set', 'sk', 'v') return {redis.call('ping'), redis.call('get', 'sk')}", "0")
    check(got == (b"*", [(b"+", b"PONG"), (b"$", b"v")]),
          f"a subscribed RESP3 client's script calls commands as an unsubscribed one ({got})")
    # Verbatim-string tables, whole or not, to a RESP3 and a RESP2 client
    # (a whole one once crashed the server).
    resp3 = Client(port)
    resp3.command("HELLO", "3")
    for conn, whole in ((resp3, (b"=", b"txt:x")), (c, (b"$", b"x"))):
        got = conn.command("EVAL", "return {verbatim_string={format='txt', string='x'}}", "0")
        check(got == whole, f"a verbatim string table returned: {got}")
        for half in ("{verbatim_string={format='txt'}}", "{verbatim_string={string='x'}}",
                     "{verbatim_string=1}"):
            conn.command("EVAL", "return " + half, "0")
    check(c.command("EVAL", "return {big_number='12\\r\\n+OK'}", "0") == (b"$", b"12  +OK"),
          "a big number's CR and LF go out as spaces (RESP2)")
    check(resp3.command("EVAL", "return {big_number='12\\r\\n+OK'}", "0") == (b"(", b"12  +OK"),
          "and in RESP3")
    check(Client(port).command("PING") == (b"+", b"PONG"), "the server serves on")


def as_redis(port):
    c = Client(port)
    got = c.command("EVAL", "local a = {} for i = 1, 7999 do a[i] = 1 end "
                    "return redis.call('lpush', 'many', unpack(a))", "0")
    check(got == (b":", b"7999"), f"a call with 7,999 arguments runs ({got})")
    c.command("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "1")
    got = c.command("EVAL", "redis.call('set', 'brief', 'v', 'PX', '1') redis.call('debug', 'sleep', '0.01') "
                    "return redis.call('exists', 'brief')", "0")
    c.command("DEBUG", "SET-DISABLE-DENY-SCRIPTS", "0")
    check(got == (b":", b"1") and c.command("EXISTS", "brief") == (b":", b"0"),
          f"a script's time is frozen at its start ({got})")


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-scripting-")
    servers = []

    def start(name, threads, *flags):
        port, proc = checks.start_server(server_bin, os.path.join(tmp, name), *flags, threads=threads)
        servers.append(proc)
        return port, proc
    try:
        port, _ = start("main", 2, "--enable-debug-command", "yes")
        as_redis(port)
        atomicity(port)
        waits_under_the_threshold(port)
        memory(port)
        hostile(port)
        # Two I/O threads, then one: the busy script's own thread must
        # serve the others.
        for threads in (2, 1):
            name = f"busy{threads}"
            port, proc = start(name, threads)
            t, result = busy_and_kill(port, threads)
            shutdown_nosave(port, proc, t, result)
            port, _ = start(name, threads)
            restarted = Client(port)
            check(all(restarted.command("GET", k) == (b"$", None) for k in ("w", "before", "after", "later")),
                  f"{threads} I/O threads: SHUTDOWN NOSAVE dropped the unkillable script's write, the "
                  "rest of its EXEC and what followed in the pipeline")
            listed = restarted.command("FUNCTION", "LIST", "LIBRARYNAME", "loops")
            check(listed[0] == b"*" and len(listed[1]) == 1, f"function libraries survive a restart ({listed})")
        port, proc = start("sigterm", 1)
        sigterm_stops_a_script(port, proc)
    finally:
        stop(servers)
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
