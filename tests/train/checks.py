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
import math
import os
import random
import struct
import subprocess
import sys
import tempfile

TRAIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                     "dsp", "train")
sys.path.insert(0, TRAIN)


def run_train_tool(script, *args):
    """dsp/train/SCRIPT run with args by this interpreter; the finished
    process, its output and errors captured as text."""
    return subprocess.run([sys.executable, os.path.join(TRAIN, script)]
                          + list(args), capture_output=True, text=True)


def need(*names):
    """The modules named, imported; if one cannot be, the test is skipped
    (exit 77, meson's code for it), saying which."""
    try:
        return [importlib.import_module(name) for name in names]
    except ImportError as e:
        print("skipped: %s" % e)
        sys.exit(77)


def write_signal(path, seconds, voiced, rate=48000, gain=1.0):
    """Raw float32 samples: harmonics of 150 Hz (a voiced tone complex), or
    white noise, the same on every call, times gain."""
    rng = random.Random(7)
    n = int(rate * seconds)
    if voiced:
        samples = (gain * 0.03
                   * sum(math.sin(2 * math.pi * 150.0 * h * k / rate) / h
                         for h in range(1, 12)) for k in range(n))
    else:
        samples = (gain * rng.uniform(-0.02, 0.02) for _ in range(n))
    with open(path, "wb") as f:
        f.write(struct.pack("<%df" % n, *samples))


def make_features(folder, features_tool, seconds, layouts=("3",)):
    """One mixture's features files in folder, made by rnndenoise-features
    --list: write_signal()'s tone complex as the speech, its noise as the
    noise; one file per feature layout, folder/lLAYOUT.rndf. Returns their
    paths in the order of layouts."""
    def at(name):
        return os.path.join(folder, name)

    write_signal(at("clean.raw"), seconds, voiced=True)
    write_signal(at("noise.raw"), seconds, voiced=False)
    with open(at("list.txt"), "w") as f:
        f.write("clean.raw noise.raw\n")
    paths = [at("l%s.rndf" % layout) for layout in layouts]
    for layout, path in zip(layouts, paths):
        subprocess.run([features_tool, "--layout", layout, "--list",
                        at("list.txt"), path], check=True)
    return paths


def random_checkpoint(path, feats, seed=4):
    """A small random network (dense 16, GRUs of 24) for feats' layout,
    normalised by its features' statistics and saved as a train.py
    checkpoint at path, for train.py --init; returns the network. Needs
    PyTorch (import it through need() first)."""
    import torch
    from net import DenoiseNet

    cfg = feats.frame_config()
    torch.manual_seed(seed)
    net = DenoiseNet(cfg["n_features"], cfg["n_bands"], 16, 24, 24)
    net.set_normalisation(feats.features.mean(0), feats.features.std(0))
    torch.save({"sizes": net.sizes, "state_dict": net.state_dict(),
                "frame_config": cfg, "epoch": 0, "log": []}, path)
    return net


def random_network_files(folder, features_tool, checkpoint):
    """make_features()'s half-second layout-3 file in folder and
    random_checkpoint() for it saved as folder/CHECKPOINT; returns the
    features file's path. Needs PyTorch."""
    import featfile

    (path,) = make_features(folder, features_tool, 0.5)
    random_checkpoint(os.path.join(folder, checkpoint),
                      featfile.FeatureFile(path))
    return path


def check_training_option(check, folder, option, value, off=0):
    """One epoch of train.py on folder/l3.rndf (make_features()'s) with
    OPTION VALUE and with OPTION OFF (the value that changes nothing), both
    from the same random_checkpoint(); checks that both run, that the
    checkpoint records the value and that it learns another network than
    OFF does. Needs PyTorch."""
    import featfile
    from net import load_checkpoint

    def at(name):
        return os.path.join(folder, name)

    random_checkpoint(at("start.pt"), featfile.FeatureFile(at("l3.rndf")))
    nets = {}
    for k, v in enumerate((value, off)):
        out = at("option-%d.pt" % k)
        proc = run_train_tool(
            "train.py", at("l3.rndf"), at("l3.rndf"), out, "--epochs", "1",
            "--chunk-frames", "50", "--batch", "2", "--threads", "1",
            "--seed", "5", "--lr", "3e-3", "--speech-weight", "16",
            "--init", at("start.pt"), option, str(v))
        check(proc.returncode == 0, "one epoch with %s %s%s"
              % (option, v, ": " + proc.stderr.strip()[-70:]
                 if proc.returncode else ""))
        if proc.returncode != 0:
            return
        nets[v] = load_checkpoint(out)
    key = option.lstrip("-").replace("-", "_")
    recorded = nets[value][1]["args"].get(key)
    check(recorded == value, "the checkpoint records %s (%s)"
          % (option, recorded))
    a, b = (nets[v][0].state_dict() for v in (value, off))
    moved = max(float((a[k].float() - b[k].float()).abs().max()) for k in a)
    check(moved > 1e-6, "%s changes what is learnt (largest weight "
          "difference %.2e)" % (option, moved))


def check_loss_option(check, features_tool, option, value, check_features,
                      off=0):
    """The body of a test of a train.py loss option: make_features()'s
    layout-3 file in a temporary folder, check_features(the file opened as
    a featfile.FeatureFile) for the option's own checks, then
    check_training_option() with OPTION VALUE and OFF; returns the exit
    status.
    Needs PyTorch."""
    import featfile

    with tempfile.TemporaryDirectory() as folder:
        path, = make_features(folder, features_tool, 2.0)
        check_features(featfile.FeatureFile(path))
        check_training_option(check, folder, option, value, off)
    return check.status()


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
