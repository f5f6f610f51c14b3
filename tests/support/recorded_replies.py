"""Replies recorded from a real server once (a redis-server 7.4.1 built
outside the tree, which CI does not have) and compared with later: one
repr() of a reply a line under a comment naming the test and the server.
"""

import ast


def write(path, test_name, server_version, views):
    """Writes `views` (what the test compares of each reply) to `path`."""
    with open(path, "w") as f:
        f.write(f"# {test_name}'s CASES, one reply a line, from redis-server "
                f"{server_version} (--record)\n")
        for v in views:
            f.write(repr(v) + "\n")
    print(f"wrote {path}: {len(views)} replies")


def read(path):
    """The views `write` recorded, in order."""
    with open(path) as f:
        return [ast.literal_eval(line) for line in f if not line.startswith("#")]
