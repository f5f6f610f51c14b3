"""What the teksdb-server client tests share: named checks that go on after
a failure, the server logs to show when one failed, and the closing line.
"""

import shutil


class Checks:
    def __init__(self, name):
        self.name = name
        self.failures = []
        self.logs = []  # server logs (stderr, a sanitizer's report too)

    def check(self, ok, what):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            self.failures.append(what)

    def finish(self, tmp):
        """Prints the logs if anything failed, removes `tmp`, prints the
        summary line and returns the exit code."""
        if self.failures:
            for name in self.logs:
                with open(name) as f:
                    print(f"--- {name}:\n" + f.read()[-4000:])
        shutil.rmtree(tmp, ignore_errors=True)
        print(f"{self.name}: {len(self.failures)} failure(s)")
        return 1 if self.failures else 0
