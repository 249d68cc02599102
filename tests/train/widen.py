#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""dsp/train/widen.py: a wider network computes the narrower one's outputs.

    widen.py RNNDENOISE_FEATURES RNNDENOISE_FORWARD

Makes a features file (layout 3) from a voiced tone complex in noise, a
random network of 24/32/40 units as a train.py checkpoint and as its
float32 model file, widens both to 32/48/56, and runs every model file
through the C inference (rnndenoise-forward run): the widened networks'
gains and VAD must match the original's to 1e-5, frame by frame, although
the new units are active (their weights are random, only their way out is
zero). A narrower size and a model file in another layout are refused.
Skipped (77) without PyTorch (python3-torch).
"""

import os
import struct
import subprocess
import sys
import tempfile

from checks import TRAIN, Checks, make_features, need

torch, export, featfile, net_module = need("torch", "export", "featfile",
                                           "net")

check = Checks()


def forward(tool, model, features, out):
    subprocess.run([tool, "run", model, features, out], check=True)
    with open(out, "rb") as f:
        data = f.read()
    return struct.unpack("<%df" % (len(data) // 4), data)


def run_widen(folder, source, features, sizes, out):
    return subprocess.run(
        [sys.executable, os.path.join(TRAIN, "widen.py"), source, features,
         os.path.join(folder, out), "--sizes", sizes],
        capture_output=True, text=True)


def main():
    features_tool, forward_tool = sys.argv[1], sys.argv[2]
    with tempfile.TemporaryDirectory() as folder:
        def at(name):
            return os.path.join(folder, name)

        make_features(folder, features_tool, 1.5, ("3", "2"))
        feats = featfile.FeatureFile(at("l3.rndf"))
        cfg = feats.frame_config()
        torch.manual_seed(3)
        net = net_module.DenoiseNet(cfg["n_features"], cfg["n_bands"], 24, 32, 40)
        net.set_normalisation(feats.features.mean(0) + 0.1,
                              feats.features.std(0) * 1.5)
        torch.save({"sizes": net.sizes, "state_dict": net.state_dict(),
                    "frame_config": cfg, "epoch": 0, "log": []},
                   at("narrow.pt"))
        export.export(at("narrow.pt"), at("narrow.rnnm"), "f32")
        reference = forward(forward_tool, at("narrow.rnnm"), at("l3.rndf"),
                            at("narrow.out"))

        for source in ("narrow.pt", "narrow.rnnm"):
            proc = run_widen(folder, at(source), at("l3.rndf"), "32,48,56",
                             "wide.pt")
            check(proc.returncode == 0, "widened from %s%s"
                  % (source, ": " + proc.stderr.strip()[-70:]
                     if proc.returncode else ""))
            if proc.returncode != 0:
                continue
            export.export(at("wide.pt"), at("wide.rnnm"), "f32")
            wide = forward(forward_tool, at("wide.rnnm"), at("l3.rndf"),
                           at("wide.out"))
            diff = max(abs(a - b) for a, b in zip(reference, wide))
            check(len(wide) == len(reference) and diff <= 1e-5,
                  "widened from %s: %d values (%d), within %.3g of the "
                  "narrow network's (1e-5)"
                  % (source, len(wide), len(reference), diff))
            check(os.path.getsize(at("wide.rnnm")) >
                  os.path.getsize(at("narrow.rnnm")),
                  "widened from %s: the file is larger" % source)

        for source, sizes, features, what in (
                ("narrow.pt", "16,48,56", "l3.rndf", "narrower"),
                ("narrow.rnnm", "32,48,56", "l2.rndf", "frame layout")):
            proc = run_widen(folder, at(source), at(features), sizes,
                             "bad.pt")
            check(proc.returncode != 0 and what in proc.stderr,
                  "%s --sizes %s on %s refused, naming the %s (exit %d): %s"
                  % (source, sizes, features, what, proc.returncode,
                     proc.stderr.strip()[-70:]))
    return check.status()


if __name__ == "__main__":
    sys.exit(main())
