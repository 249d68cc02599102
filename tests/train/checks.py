# SPDX-License-Identifier: LGPL-2.1-or-later
"""Shared by the tests of the training tools: puts dsp/train on the import
path (TRAIN) and keeps a list of checks that prints each one and gives the
exit status.

    import checks
    np, synth = checks.need("numpy", "synth")
    check = checks.Checks()
    check(x == 1, "x is 1 (%d)" % x)
    sys.exit(check.status())
"""

import importlib
import os
import subprocess
import sys

TRAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "dsp", "train")
sys.path.insert(0, TRAIN)


def need(*names):
    """The modules named, imported; if one cannot be, the test is skipped
    (exit 77, meson's code for it), saying which."""
    try:
        return [importlib.import_module(name) for name in names]
    except ImportError as e:
        print("skipped: %s" % e)
        sys.exit(77)


class Checks:
    """Every check is printed, ok or FAILED; failures are counted."""

    def __init__(self):
        self.failures = []

    def __call__(self, cond, what):
        print("%s: %s" % ("ok" if cond else "FAILED", what))
        if not cond:
            self.failures.append(what)

    def synth_refuses(self, args, says):
        """Checks that synth.py OUT ARGS... exits with status 2 (argparse's
        for a bad command line) and says `says` on stderr."""
        run = subprocess.run(
            [sys.executable, os.path.join(TRAIN, "synth.py"), "/nonexistent"]
            + list(args), capture_output=True, text=True, check=False)
        self(run.returncode == 2 and says in run.stderr,
             "%s refused (exit %d): %s" % (" ".join(args), run.returncode,
                                           run.stderr.strip()[-70:]))

    def status(self):
        """0 if every check passed, else 1 (after saying how many failed)."""
        if self.failures:
            print("%d check(s) failed" % len(self.failures))
            return 1
        return 0
