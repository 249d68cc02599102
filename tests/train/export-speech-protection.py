#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/export.py --speech-protection: the file names the speech
protection the processor starts with (format version 2).

    export-speech-protection.py RNNDENOISE_FEATURES RNNDENOISE_MODEL

From a random network's checkpoint: export.py without the option writes
version 1 files, as before; with --speech-protection 0.5, version 2 files
4 bytes longer that rnndenoise-model loads as version 2 naming 0.5, whose
weights read back as the version 1 file's; modelfile.read_model() gives
0.5 back (None for version 1); quantise.py keeps it, writing the bytes of
export.py's int8x8 file; a protection outside 0..2 is refused. Skipped (77)
without PyTorch (python3-torch).
"""

import os
import subprocess
import sys
import tempfile

from checks import Checks, need, random_network_files, run_train_tool

# torch: random_network_files() needs it.
np, _torch, modelfile = need("numpy", "torch", "modelfile")

check = Checks()


def info(model_tool, path):
    """rnndenoise-model info's lines as a dict, label: value."""
    out = subprocess.run([model_tool, "info", path], check=True,
                         capture_output=True, text=True).stdout
    return dict(line.split(":", 1) for line in out.splitlines()
                if ":" in line and not line.startswith("  "))


def export(*args):
    return run_train_tool("export.py", *args)


def main():
    features_tool, model_tool = sys.argv[1:3]
    with tempfile.TemporaryDirectory() as tmp:
        def at(name):
            return os.path.join(tmp, name)

        random_network_files(tmp, features_tool, "net.pt")
        for name, extra in (("v1", []), ("v2", ["--speech-protection", "0.5"])):
            run = export(at("net.pt"), at(name + ".rnnm"), "--int8x8",
                         at(name + "-int8x8.rnnm"), *extra)
            check(run.returncode == 0, "export.py %s: %s"
                  % (" ".join(extra) or "without the option",
                     run.stderr.strip() or "ok"))
        v1, v2 = info(model_tool, at("v1.rnnm")), info(model_tool,
                                                      at("v2.rnnm"))
        check(v1["format version"].strip() == "1"
              and v1["speech protection"].strip().startswith("1 "),
              "without the option: version 1, the default (%s, %s)"
              % (v1["format version"].strip(),
                 v1["speech protection"].strip()))
        check(v2["format version"].strip() == "2"
              and v2["speech protection"].strip() == "0.5",
              "with 0.5: version 2 naming 0.5 (%s, %s)"
              % (v2["format version"].strip(),
                 v2["speech protection"].strip()))
        check(info(model_tool, at("v2-int8x8.rnnm"))["speech protection"]
              .strip() == "0.5", "the int8x8 file names it too")
        sizes = [os.path.getsize(at(n)) for n in ("v1.rnnm", "v2.rnnm")]
        check(sizes[1] == sizes[0] + 4, "version 2 is 4 bytes longer (%d, %d)"
              % tuple(sizes))

        m1, m2 = modelfile.read_model(at("v1.rnnm")), modelfile.read_model(
            at("v2.rnnm"))
        check(m1.speech_protection is None and m2.speech_protection == 0.5,
              "read_model() gives None and 0.5 (%s, %s)"
              % (m1.speech_protection, m2.speech_protection))
        same = all(np.array_equal(a, b)
                   for l1, l2 in zip(m1.layers, m2.layers)
                   for a, b in zip(l1["weights"] + l1["biases"],
                                   l2["weights"] + l2["biases"]))
        check(same and m1.frame == m2.frame, "both hold the same network")

        quantised = run_train_tool("quantise.py", at("v2.rnnm"), at("q.rnnm"))
        check(quantised.returncode == 0, "quantise.py keeps version 2: %s"
              % (quantised.stderr.strip()[-70:] or "ok"))
        with open(at("q.rnnm"), "rb") as a, open(at("v2-int8x8.rnnm"),
                                                 "rb") as b:
            check(a.read() == b.read(), "quantise.py keeps the speech "
                  "protection: export.py's int8x8 bytes")

        run = export(at("net.pt"), at("bad.rnnm"), "--speech-protection", "3")
        check(run.returncode == 2 and "outside 0..2" in run.stderr,
              "--speech-protection 3 is refused (%s)"
              % run.stderr.strip().splitlines()[-1:])
    sys.exit(check.status())


if __name__ == "__main__":
    main()
