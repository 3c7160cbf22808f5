# SPDX-License-Identifier: BSD-2-Clause
"""A suite's outcome: the "pass=N fail=M skip=K" line tests/run-suites.sh sums from
$RESULTS/<suite>, the per-case result the QEMU harnesses report, and the exceptions that end a
case early."""
import dataclasses
import os
import threading


class Skip(Exception):
    """A test that cannot run here (no root, a missing tool); the message says why."""


class CaseFailure(Exception):
    """A case that cannot be built, run or judged; the message is the reason it failed."""


def indent(text, by="    "):
    return "\n".join(by + ln for ln in text.split("\n"))


@dataclasses.dataclass
class Result:
    """One case: PASS, FAIL, XFAIL (a known failure, counted as a pass) or SKIP."""
    name: str
    status: str
    seconds: float = 0.0
    message: str = ""
    kept: tuple = ()      # files left for a failure's reproduction


def write(suite, npass, nfail, nskip=0):
    """Writes the suite's line to $RESULTS/<suite> (nothing when RESULTS is unset)."""
    results = os.environ.get("RESULTS")
    if results:
        os.makedirs(results, exist_ok=True)
        with open(os.path.join(results, suite), "w") as f:
            f.write(f"pass={npass} fail={nfail} skip={nskip}\n")


def finish(suite, npass, nfail, nskip=0, label=None, note=""):
    """Prints "<label>: pass=N fail=M skip=K<note>" (label defaults to the suite), writes it to
    $RESULTS/<suite>, and returns the exit status: 1 on any failure, else 0."""
    print(f"{label or suite}: pass={npass} fail={nfail} skip={nskip}{note}", flush=True)
    write(suite, npass, nfail, nskip)
    return 1 if nfail else 0


class Tally:
    """Counts results as they come (from several threads) and prints each case's line."""

    def __init__(self):
        self.lock = threading.Lock()
        self.results = []

    def add(self, r, details=True):
        """Prints "STATUS seconds name", then for a FAIL (or with details, any message) the
        message and the kept files, indented."""
        with self.lock:
            self.results.append(r)
            print(f"{r.status:5} {r.seconds:6.1f}s  {r.name}", flush=True)
            if r.message and (details or r.status == "FAIL"):
                print(indent(r.message, "  "), flush=True)
            if r.kept and (details or r.status == "FAIL"):
                print("  logs kept: " + " ".join(r.kept), flush=True)

    def counts(self):
        """(passed, failed, skipped); an XFAIL counts as passed."""
        st = [r.status for r in self.results]
        return (sum(s in ("PASS", "XFAIL") for s in st), st.count("FAIL"), st.count("SKIP"))
