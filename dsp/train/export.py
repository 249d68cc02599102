#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
"""Write a trained checkpoint as a model file (docs/model-format.md).

    export.py CHECKPOINT.pt OUT.rnnm [--int8 OUT_INT8.rnnm]

The float32 file holds the weights as trained (the feature normalisation
folded into the first layer). The int8 file stores the weight matrices of
every layer but the first as int8 with one float32 scale per row, biases in
float32. The first layer stays float32: it reads the raw features, whose
scales differ by two orders of magnitude (the first cepstral coefficient is
near -30, the last ones near 0.2), so one scale per row would leave the
small-scale features with almost no resolution; it holds under 2 % of the
weights. Prints the sizes.
"""

import argparse
import struct
import zlib

import numpy as np

from net import GRU, load_checkpoint

MAGIC = b"RNDM"
VERSION = 1
HEADER_SIZE = 48
RECORD_SIZE = 48
F32, S8 = 0, 1


def quantize_rows(w):
    """Per-row symmetric int8: scale = max |w| / 127 (1 for a zero row),
    q = round-half-even (w / scale) clamped to -127..127."""
    w = np.asarray(w, dtype=np.float32)
    amax = np.abs(w).max(axis=1)
    scale = np.where(amax > 0, amax / np.float32(127), 1).astype(np.float32)
    q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def dequantize(q, scale):
    """The weights an int8 layer computes with, as float64."""
    return q.astype(np.float64) * scale.astype(np.float64)[:, None]


def layer_blobs(layer, weight_type):
    """The weights, biases and scales blobs of one layer."""
    biases = b"".join(v.astype("<f4").tobytes() for v in layer["biases"])
    if weight_type == S8:
        qs = [quantize_rows(m) for m in layer["weights"]]
        weights = b"".join(q.tobytes() for q, _ in qs)
        scales = b"".join(s.astype("<f4").tobytes() for _, s in qs)
    else:
        weights = b"".join(m.astype("<f4").tobytes()
                           for m in layer["weights"])
        scales = b""
    return weights, biases, scales


def int8_weight_types(n_layers):
    """Weight type per layer of the int8 variant: float32 for the first
    layer, int8 for the others."""
    return [F32] + [S8] * (n_layers - 1)


def model_bytes(frame, layers, gain_layer, vad_layer, weight_types):
    """The whole model file as bytes, checksum included; weight_types has
    one entry (F32 or S8) per layer."""
    n_bands = frame["n_bands"]
    edges = struct.pack("<%dH" % (n_bands + 1), *frame["band_edges"])
    edges += b"\0" * (-len(edges) % 4)
    data_start = HEADER_SIZE + len(edges) + RECORD_SIZE * len(layers)
    data, records = bytearray(), b""

    def place(blob):
        if not blob:
            return 0, 0
        offset = data_start + len(data)
        data.extend(blob)
        data.extend(b"\0" * (-len(data) % 4))
        return offset, len(blob)

    for layer, weight_type in zip(layers, weight_types):
        w = layer["weights"][0]
        out_size = w.shape[0] // 3 if layer["kind"] == GRU else w.shape[0]
        blobs = layer_blobs(layer, weight_type)
        placed = [place(b) for b in blobs]
        records += struct.pack("<12I", layer["kind"], layer["input"],
                               w.shape[1], out_size, layer["activation"],
                               weight_type, *placed[0], *placed[1],
                               *placed[2])
    size = data_start + len(data) + 4
    head = MAGIC + struct.pack(
        "<11I", VERSION, size, frame["sample_rate"], frame["hop"],
        frame["window"], n_bands, frame["feature_layout_id"], len(layers),
        gain_layer, vad_layer, 0)
    body = head + edges + records + bytes(data)
    assert len(body) + 4 == size
    return body + struct.pack("<I", zlib.crc32(body))


def export(checkpoint, out, int8):
    """Write one model file from a checkpoint, float32 or the int8 variant;
    returns its size in bytes."""
    net, ckpt = load_checkpoint(checkpoint)
    layers, gain_layer, vad_layer = net.export_layers()
    types = int8_weight_types(len(layers)) if int8 else [F32] * len(layers)
    blob = model_bytes(ckpt["frame_config"], layers, gain_layer, vad_layer,
                       types)
    with open(out, "wb") as f:
        f.write(blob)
    return len(blob)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    ap.add_argument("--int8", metavar="OUT_INT8")
    args = ap.parse_args()
    size = export(args.checkpoint, args.out, False)
    print("export: %s, float32, %d bytes" % (args.out, size))
    if args.int8:
        size = export(args.checkpoint, args.int8, True)
        print("export: %s, int8 (first layer float32), %d bytes"
              % (args.int8, size))


if __name__ == "__main__":
    main()
