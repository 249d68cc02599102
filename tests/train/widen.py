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
A network reading one frame ahead (train.py --lookahead 1), as a float32
model file, is read back at its own sizes: its checkpoint says lookahead
1 and exports to a file giving the same outputs; widened to 32/48/56, it
still reads one frame ahead and gives the same outputs.
Skipped (77) without PyTorch (python3-torch).
"""

import os
import struct
import subprocess
import sys
import tempfile

from checks import Checks, make_features, need, run_train_tool

torch, export, featfile, net_module, train = need(
    "torch", "export", "featfile", "net", "train")

check = Checks()


def forward(tool, model, features, out):
    subprocess.run([tool, "run", model, features, out], check=True)
    with open(out, "rb") as f:
        data = f.read()
    return struct.unpack("<%df" % (len(data) // 4), data)


def forward_checkpoint(folder, tool, name):
    """The checkpoint NAME.pt in folder as export.py's float32 file, run
    through the C forward pass on l3.rndf."""
    def at(suffix):
        return os.path.join(folder, name + suffix)

    export.export(at(".pt"), at(".rnnm"), "f32")
    return forward(tool, at(".rnnm"), os.path.join(folder, "l3.rndf"),
                   at(".out"))


def check_same_outputs(reference, outputs, what):
    diff = max(abs(a - b) for a, b in zip(reference, outputs))
    check(len(outputs) == len(reference) and diff <= 1e-5,
          "%s: %d values (%d), within %.3g of the original's (1e-5)"
          % (what, len(outputs), len(reference), diff))


def run_widen(folder, source, features, sizes, out):
    return run_train_tool("widen.py", source, features,
                          os.path.join(folder, out), "--sizes", sizes)


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
        reference = forward_checkpoint(folder, forward_tool, "narrow")

        for source in ("narrow.pt", "narrow.rnnm"):
            if widen_checked(folder, source, "32,48,56", "wide",
                             "widened from %s" % source) is None:
                continue
            wide = forward_checkpoint(folder, forward_tool, "wide")
            check_same_outputs(reference, wide, "widened from %s" % source)
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
        read_back_lookahead(folder, forward_tool, net, cfg)
    return check.status()


def read_back_lookahead(folder, forward_tool, net, cfg):
    """The narrow network given one frame of lookahead with random weights
    for the frame ahead, as a float32 file, read back by widen.py."""
    def at(name):
        return os.path.join(folder, name)

    ahead = train.with_lookahead_inputs(net, 1)
    with torch.no_grad():
        ahead.inp_ahead.weight.normal_(0.0, 0.2)
    torch.save({"sizes": ahead.sizes, "state_dict": ahead.state_dict(),
                "frame_config": cfg, "epoch": 0, "log": [], "lookahead": 1},
               at("ahead.pt"))
    reference = forward_checkpoint(folder, forward_tool, "ahead")
    back = widen_checked(folder, "ahead.rnnm", "24,32,40", "back",
                         "lookahead file read back at its sizes")
    if back is None:
        return
    check(back.get("lookahead") == 1 and back["sizes"].get("lookahead") == 1,
          "the read-back checkpoint says lookahead %s"
          % back.get("lookahead"))
    again = forward_checkpoint(folder, forward_tool, "back")
    check_same_outputs(reference, again, "read back with lookahead")
    wide = widen_checked(folder, "ahead.rnnm", "32,48,56", "wide-ahead",
                         "lookahead network widened")
    if wide is None:
        return
    check(wide["sizes"].get("lookahead") == 1
          and (wide["sizes"]["dense"], wide["sizes"]["gru1"],
               wide["sizes"]["gru2"]) == (32, 48, 56),
          "the widened checkpoint reads 1 frame ahead at 32/48/56 (%s)"
          % wide["sizes"])
    again = forward_checkpoint(folder, forward_tool, "wide-ahead")
    check_same_outputs(reference, again, "widened with lookahead")


def widen_checked(folder, source, sizes, name, what):
    """widen.py on folder's SOURCE (with l3.rndf) at sizes, into NAME.pt,
    checked to succeed as what; the checkpoint it wrote, or None (a failed
    check) if it failed."""
    proc = run_widen(folder, os.path.join(folder, source),
                     os.path.join(folder, "l3.rndf"), sizes, name + ".pt")
    check(proc.returncode == 0, "%s%s" % (what, ": " + proc.stderr.strip()[-70:]
                                         if proc.returncode else ""))
    if proc.returncode != 0:
        return None
    return torch.load(os.path.join(folder, name + ".pt"), map_location="cpu")


if __name__ == "__main__":
    sys.exit(main())
