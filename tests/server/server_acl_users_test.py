#!/usr/bin/env python3
"""teksdb-server's ACL as an operator runs it (docs/RELIABILITY.md, "Who may
do what"):
  - the example ACL file (server/users.acl) loads at start, and each of its
    users may do what the documentation says, and no more: the default
    user off, an administrator, an application user on app:* keys and
    channels, a read-only analytics user, the Sentinel and replication
    users (a replica logs in as that one: masteruser, masterauth);
  - ACL SAVE writes the file whole, ACL LOAD reads it back (connections of
    the users it replaced are closed), and a malformed file stops the
    start naming the file and line;
  - users changed under load: clients logged in as a user run commands on
    several I/O threads while another connection changes and deletes that
    user again and again; every reply is the command's or NOPERM (or the
    connection is closed, when its user is deleted), and the server stays
    up (under ThreadSanitizer too: ctest label "concurrent").

Usage: server_acl_users_test.py PATH/TO/teksdb-server
"""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from server_checks import Checks  # noqa: E402
from resp_client import Client, free_port  # noqa: E402

checks = Checks("server_acl_users")
check = checks.check
EXAMPLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "server", "users.acl")
# The example's passwords (its file holds their SHA-256 only).
PASSWORDS = {u: f"{u}-secret" for u in ("admin", "app", "analytics", "sentinel", "replica")}


def login(port, user):
    c = Client(port)
    reply = c.command("AUTH", user, PASSWORDS[user])
    check(reply == (b"+", b"OK"), f"AUTH {user} ({reply})")
    return c


def denied(reply):
    return reply[0] == b"-" and reply[1].startswith(b"NOPERM")


def example_users(port):
    anonymous = Client(port)
    check(anonymous.command("GET", "app:1")[1].startswith(b"NOAUTH"), "the default user is off: NOAUTH")
    admin, app, analytics = login(port, "admin"), login(port, "app"), login(port, "analytics")
    check(admin.command("SET", "other", "v") == (b"+", b"OK"), "admin: any key")
    check(app.command("SET", "app:1", "v") == (b"+", b"OK") and app.command("GET", "app:1") == (b"$", b"v"),
          "app: its own keys")
    check(denied(app.command("GET", "other")), "app: NOPERM outside app:*")
    check(denied(app.command("FLUSHALL")) and denied(app.command("KEYS", "*")), "app: nothing @dangerous")
    check(app.command("PUBLISH", "app:events", "m")[0] == b":" and denied(app.command("PUBLISH", "other", "m")),
          "app: its own channels only")
    check(app.command("EVAL", "return redis.call('get', KEYS[1])", "1", "app:1") == (b"$", b"v"),
          "app: scripts, on its keys")
    check(denied(app.command("EVAL", "return redis.call('get', KEYS[1])", "1", "other")),
          "app: a script's declared keys are checked at EVAL")
    check(app.command("EVAL", "return redis.call('get', 'other')", "0")[1].startswith(
        b"ERR The user executing the script can't access"), "app: what a script calls is checked as its caller")
    check(analytics.command("GET", "other") == (b"$", b"v"), "analytics: reads every key")
    check(denied(analytics.command("SET", "other", "x")), "analytics: writes nothing")
    sentinel = login(port, "sentinel")
    check(sentinel.command("ROLE")[0] == b"*" and denied(sentinel.command("GET", "app:1")),
          "sentinel: ROLE, not the data")
    replica = login(port, "replica")
    check(denied(replica.command("GET", "app:1")), "replica: not the data")
    log = admin.command("ACL", "LOG")
    check(log[0] == b"*" and len(log[1]) >= 5, f"the denials are in ACL LOG ({len(log[1])} entries)")


def replica_logs_in(server_bin, tmp, primary_port):
    port = free_port()
    with open(os.path.join(tmp, "replica.log"), "w") as out:
        proc = subprocess.Popen([server_bin, "--dir", os.path.join(tmp, "replica"), "--port", str(port),
                                 "--replicaof", f"127.0.0.1 {primary_port}", "--masteruser", "replica",
                                 "--masterauth", PASSWORDS["replica"]], stdout=out, stderr=out)
    try:
        deadline = time.time() + 30
        value = None
        while time.time() < deadline and value != (b"$", b"v"):
            try:
                value = Client(port, connect_timeout=1).command("GET", "app:1")
            except (ConnectionError, OSError):
                pass
            time.sleep(0.2)
        check(value == (b"$", b"v"), f"a replica logged in as the replication user has the data ({value})")
    finally:
        proc.kill()
        proc.wait()


def save_and_load(port, acl_file):
    admin = login(port, "admin")
    check(admin.command("ACL", "SETUSER", "temp", "on", ">temp", "~t:*", "+get") == (b"+", b"OK"), "SETUSER temp")
    check(admin.command("ACL", "SAVE") == (b"+", b"OK"), "ACL SAVE")
    with open(acl_file) as f:
        saved = f.read()
    check("user temp on #" in saved and "temp" not in saved.split("user temp on #")[1].split()[0],
          "the saved file has the new user, its password as a hash")
    check(not any(name.startswith("users.acl.tmp") for name in os.listdir(os.path.dirname(acl_file))),
          "no temporary file left beside it")
    temp = Client(port)
    temp.command("AUTH", "temp", "temp")
    with open(acl_file, "a") as f:
        f.write("user extra on nopass +ping\n")
    check(admin.command("ACL", "LOAD") == (b"+", b"OK"), "ACL LOAD of the file with a user added")
    # (The users ACL LOAD replaced are gone with their connections: this one's too.)
    admin = login(port, "admin")
    check(admin.command("ACL", "GETUSER", "extra")[0] == b"*", "the added user is there")
    try:
        closed = temp.command("PING")[0] == b"-"
    except (ConnectionError, OSError):
        closed = True
    check(closed, "a connection of a user ACL LOAD replaced is closed")
    with open(acl_file, "a") as f:
        f.write("user broken on +nosuchcommand\n")
    reply = admin.command("ACL", "LOAD")
    check(reply[0] == b"-" and b"users.acl:" in reply[1] and b"nosuchcommand" in reply[1],
          f"a bad line: ACL LOAD names it and changes nothing ({reply[1][:120]})")


def malformed_file_stops_start(server_bin, tmp):
    bad = os.path.join(tmp, "bad.acl")
    with open(bad, "w") as f:
        f.write("user ok on nopass +@all\nuser bad on ~a ~* ~b\n")
    result = subprocess.run([server_bin, "--dir", os.path.join(tmp, "never"), "--port", str(free_port()),
                             "--aclfile", bad], capture_output=True, text=True, timeout=30)
    check(result.returncode != 0 and "bad.acl:2" in result.stderr,
          f"a malformed ACL file stops the start, naming the line ({result.stderr.strip()[-160:]})")


def changes_under_load(port):
    """Clients logged in as `churn` on several I/O threads; another
    connection changes its rules and deletes and recreates it meanwhile."""
    admin = login(port, "admin")
    rules = [["~c:*", "+@all"], ["~c:1*", "+get", "+set"], ["resetkeys", "~*", "-set", "+get"],
             ["nocommands", "+ping"], ["allkeys", "allcommands", "(+get ~c:2*)"]]
    admin.command("ACL", "SETUSER", "churn", "reset", "on", ">churn", *rules[0])
    stop, bad = threading.Event(), []

    def client_loop(n):
        c = None
        while not stop.is_set():
            try:
                if c is None:
                    c = Client(port, connect_timeout=2)
                    if c.command("AUTH", "churn", "churn") != (b"+", b"OK"):
                        c = None
                        continue
                for cmd in (["SET", f"c:{n}", "x"], ["GET", f"c:{n}"], ["PING"], ["MGET", "c:1", "c:2"]):
                    reply = c.command(*cmd)
                    if reply[0] == b"-" and not reply[1].startswith((b"NOPERM", b"NOAUTH")):
                        bad.append((cmd, reply))
            except (ConnectionError, OSError):
                c = None  # its user was deleted: closed, as Redis does

    threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    deadline = time.time() + 5
    changes = 0
    while time.time() < deadline:
        changes += 1
        if changes % 7 == 0:
            admin.command("ACL", "DELUSER", "churn")
        admin.command("ACL", "SETUSER", "churn", "reset", "on", ">churn", *rules[changes % len(rules)])
    stop.set()
    for t in threads:
        t.join()
    check(not bad, f"{changes} changes under 4 clients: every reply the command's or NOPERM ({bad[:3]})")
    check(admin.command("PING") == (b"+", b"PONG"), "the server is up")


def main():
    server_bin = sys.argv[1]
    tmp = tempfile.mkdtemp(prefix="teksdb-acl-users-")
    acl_file = os.path.join(tmp, "users.acl")
    shutil.copy(EXAMPLE, acl_file)
    port, proc = checks.start_server(server_bin, os.path.join(tmp, "db"), "--aclfile", acl_file, threads=4)
    try:
        example_users(port)
        replica_logs_in(server_bin, tmp, port)
        changes_under_load(port)
        save_and_load(port, acl_file)
        malformed_file_stops_start(server_bin, tmp)
    finally:
        proc.kill()
        proc.wait()
    return checks.finish(tmp)


if __name__ == "__main__":
    sys.exit(main())
