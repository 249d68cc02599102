#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/train.py --lookahead: the network reads the next frames too.

    train-lookahead.py RNNDENOISE_FEATURES

Makes a features file from a voiced tone complex in noise and a random
network as a train.py checkpoint. With one frame of lookahead, each input
row is the frame's features followed by the next frame's (a chunk's last
frame repeated), the targets stay the frame's own; the network widened
for it gives exactly the original's gains and losses; one epoch of
train.py --lookahead 1 from the checkpoint writes a network that reads
twice the features and says so; export.py refuses it (no model file holds
a lookahead), and train.py refuses to go on from it with another
lookahead. Skipped (77) without PyTorch (python3-torch).
"""

import math
import os
import random
import struct
import subprocess
import sys
import tempfile

from checks import TRAIN, Checks, need

np, torch, featfile, net_module, train = need("numpy", "torch", "featfile",
                                              "net", "train")

RATE = 48000
check = Checks()


def write_signal(path, seconds, voiced):
    """Raw float32 at 48 kHz: harmonics of 180 Hz, or white noise."""
    rng = random.Random(5)
    n = int(RATE * seconds)
    if voiced:
        samples = (0.03 * sum(math.sin(2 * math.pi * 180.0 * h * k / RATE)
                              / h for h in range(1, 10)) for k in range(n))
    else:
        samples = (rng.uniform(-0.02, 0.02) for _ in range(n))
    with open(path, "wb") as f:
        f.write(struct.pack("<%df" % n, *samples))


def check_rows(feats):
    """gather() with one frame of lookahead, on two chunks of 20 frames."""
    starts = np.array([0, 30])
    x0, g0, v0 = train.gather(feats, starts, 20)
    x1, g1, v1 = train.gather(feats, starts, 20, lookahead=1)
    n = feats.features.shape[1]
    check(tuple(x1.shape) == (2, 20, 2 * n),
          "lookahead rows hold two frames' features (%s)" % (tuple(x1.shape),))
    check(torch.equal(x1[:, :, :n], x0), "the first half is the frame's own")
    check(torch.equal(x1[:, :-1, n:], x0[:, 1:]),
          "the second half is the next frame's")
    check(torch.equal(x1[:, -1, n:], x0[:, -1]),
          "a chunk's last frame is its own lookahead")
    check(torch.equal(g1, g0) and torch.equal(v1, v0),
          "the targets are the frame's own")


def run_train(folder, features, init, out, lookahead):
    return subprocess.run(
        [sys.executable, os.path.join(TRAIN, "train.py"), features, features,
         os.path.join(folder, out), "--epochs", "1", "--chunk-frames", "50",
         "--batch", "2", "--threads", "1", "--init", init,
         "--lookahead", str(lookahead)],
        capture_output=True, text=True)


def main():
    features_tool = sys.argv[1]
    with tempfile.TemporaryDirectory() as folder:
        def at(name):
            return os.path.join(folder, name)

        write_signal(at("clean.raw"), 2.0, voiced=True)
        write_signal(at("noise.raw"), 2.0, voiced=False)
        with open(at("list.txt"), "w") as f:
            f.write("clean.raw noise.raw\n")
        subprocess.run([features_tool, "--layout", "3", "--list",
                        at("list.txt"), at("l3.rndf")], check=True)
        feats = featfile.FeatureFile(at("l3.rndf"))
        cfg = feats.frame_config()
        check_rows(feats)

        torch.manual_seed(4)
        net = net_module.DenoiseNet(cfg["n_features"], cfg["n_bands"], 16, 24,
                                    24)
        net.set_normalisation(feats.features.mean(0), feats.features.std(0))
        wide = train.with_lookahead_inputs(net, 1)
        plain = train.evaluate(net, feats)
        ahead = train.evaluate(wide, feats, lookahead=1)
        check(np.array_equal(plain, ahead),
              "the widened network gives the same losses (%s, %s)"
              % (plain, ahead))
        check(wide.sizes["n_features"] == 2 * cfg["n_features"],
              "it reads %d features" % wide.sizes["n_features"])

        torch.save({"sizes": net.sizes, "state_dict": net.state_dict(),
                    "frame_config": cfg, "epoch": 0, "log": []},
                   at("start.pt"))
        proc = run_train(folder, at("l3.rndf"), at("start.pt"), "la.pt", 1)
        check(proc.returncode == 0, "one epoch with --lookahead 1%s"
              % (": " + proc.stderr.strip()[-70:] if proc.returncode else ""))
        if proc.returncode == 0:
            trained, ckpt = net_module.load_checkpoint(at("la.pt"))
            check(ckpt.get("lookahead") == 1
                  and trained.sizes["n_features"] == 2 * cfg["n_features"],
                  "the checkpoint reads 2 x %d features, lookahead %s"
                  % (cfg["n_features"], ckpt.get("lookahead")))
            proc = subprocess.run(
                [sys.executable, os.path.join(TRAIN, "export.py"),
                 at("la.pt"), at("la.rnnm")], capture_output=True, text=True)
            check(proc.returncode != 0 and "lookahead" in proc.stderr
                  and not os.path.exists(at("la.rnnm")),
                  "export.py refuses it (exit %d): %s"
                  % (proc.returncode, proc.stderr.strip()[-70:]))
            proc = run_train(folder, at("l3.rndf"), at("la.pt"), "la2.pt", 2)
            check(proc.returncode != 0 and "lookahead" in proc.stderr,
                  "going on from it with --lookahead 2 is refused (exit %d):"
                  " %s" % (proc.returncode, proc.stderr.strip()[-70:]))
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
