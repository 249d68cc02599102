# SPDX-License-Identifier: LGPL-2.1-or-later
"""Model files (docs/model-format.md) without PyTorch: the constants, the
per-row int8 quantisation, a writer and a reader of float32 files. Used by
export.py, quantise.py and check_export.py."""

import struct
import sys
import zlib
from collections import namedtuple

import numpy as np

DENSE, GRU = 1, 2
LINEAR, TANH, SIGMOID = 0, 1, 2
INPUT_FEATURES = 0
MAGIC = b"RNDM"
# Version 2 adds the speech protection the network was tuned with (a
# float32 after version 1's header); a file without one is version 1.
# Version 3 adds the index of a bin-gain head (a u32 after version 2's
# header; 0 for none).
HEADER_SIZE = {1: 48, 2: 52, 3: 56}
# The speech protection a version 1 file stands for (and a version 3 file
# names when none is given).
DEFAULT_SPEECH_PROTECTION = 1.0
RECORD_SIZE = 48
# The largest speech protection a file may name (the processor's range); a
# version 1 file names none and stands for 1.
MAX_SPEECH_PROTECTION = 2.0
# Frames past the current one a network may read (the header's lookahead).
MAX_LOOKAHEAD = 2
# Weight types: float32; int8 with per-row scales; int8x8, the same
# weights with the inputs quantised too (only for inputs bounded by 1).
F32, S8, S8X8 = 0, 1, 2


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
    if weight_type in (S8, S8X8):
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


def model_bytes(frame, layers, gain_layer, vad_layer, weight_types,
                lookahead=0, speech_protection=None, bin_layer=0):
    """The whole model file as bytes, checksum included; weight_types has
    one entry (F32, S8 or S8X8) per layer; lookahead is the frames the
    network reads past the current one (its layer 0 then reads
    n_features x (1 + lookahead) values); speech_protection, if given, is
    the one the processor starts with (a version 2 file; None writes
    version 1, which names none); bin_layer, if not 0, is the index of the
    bin-gain head (a version 3 file, naming speech_protection or 1)."""
    if not 0 <= lookahead <= MAX_LOOKAHEAD:
        raise ValueError("lookahead %d is outside 0..%d"
                         % (lookahead, MAX_LOOKAHEAD))
    version = 1
    if bin_layer and speech_protection is None:
        speech_protection = DEFAULT_SPEECH_PROTECTION
    if speech_protection is not None:
        if not 0 <= speech_protection <= MAX_SPEECH_PROTECTION:
            raise ValueError("speech protection %g is outside 0..%g"
                             % (speech_protection, MAX_SPEECH_PROTECTION))
        version = 2
    if bin_layer:
        head = layers[bin_layer] if bin_layer < len(layers) else None
        if head is None or head["kind"] != DENSE \
                or head["activation"] != LINEAR \
                or head["input"] == INPUT_FEATURES \
                or bin_layer in (gain_layer, vad_layer):
            raise ValueError("bin layer %d is not a dense layer of its own "
                             "with linear outputs reading a layer"
                             % bin_layer)
        version = 3
    n_bands = frame["n_bands"]
    edges = struct.pack("<%dH" % (n_bands + 1), *frame["band_edges"])
    edges += b"\0" * (-len(edges) % 4)
    data_start = (HEADER_SIZE[version] + len(edges)
                  + RECORD_SIZE * len(layers))
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
        "<11I", version, size, frame["sample_rate"], frame["hop"],
        frame["window"], n_bands, frame["feature_layout_id"], len(layers),
        gain_layer, vad_layer, lookahead)
    if version >= 2:
        head += struct.pack("<f", speech_protection)
    if version >= 3:
        head += struct.pack("<I", bin_layer)
    body = head + edges + records + bytes(data)
    assert len(body) + 4 == size
    return body + struct.pack("<I", zlib.crc32(body))


# What read_model() gives: model_bytes()'s arguments but the weight types;
# speech_protection is None for a version 1 file, bin_layer 0 before
# version 3.
ModelFile = namedtuple("ModelFile", "frame layers gain_layer vad_layer "
                       "lookahead speech_protection bin_layer")


def read_model(path):
    """A float32 model file as a ModelFile."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != MAGIC:
        sys.exit("%s: not a model file" % path)
    if zlib.crc32(data[:-4]) != struct.unpack_from("<I", data, len(data) - 4)[0]:
        sys.exit("%s: checksum mismatch" % path)
    (version, _, rate, hop, window, n_bands, layout, n_layers, gain_layer,
     vad_layer, lookahead) = struct.unpack_from("<11I", data, 4)
    if version not in HEADER_SIZE:
        sys.exit("%s: format version %d, this reads 1 to 3" % (path, version))
    speech_protection, bin_layer = None, 0
    if version >= 2:
        # Right after version 1's header.
        speech_protection = struct.unpack_from("<f", data, HEADER_SIZE[1])[0]
    if version >= 3:
        bin_layer = struct.unpack_from("<I", data, HEADER_SIZE[2])[0]
    header = HEADER_SIZE[version]
    edges = struct.unpack_from("<%dH" % (n_bands + 1), data, header)
    table = header + 2 * (n_bands + 1) + (-2 * (n_bands + 1) % 4)
    frame = {"sample_rate": rate, "hop": hop, "window": window,
             "n_bands": n_bands, "feature_layout_id": layout,
             "band_edges": list(edges)}
    layers = []
    for i in range(n_layers):
        (kind, inp, n_in, n_out, act, wtype, w_off, w_size, b_off, b_size,
         _, _) = struct.unpack_from("<12I", data, table + RECORD_SIZE * i)
        if wtype != F32:
            sys.exit("%s: layer %d is not float32" % (path, i))
        weights = np.frombuffer(data, "<f4", w_size // 4, w_off)
        biases = np.frombuffer(data, "<f4", b_size // 4, b_off)
        if kind == GRU:
            ih = 3 * n_out * n_in
            mats = [weights[:ih].reshape(3 * n_out, n_in),
                    weights[ih:].reshape(3 * n_out, n_out)]
            vecs = [biases[:3 * n_out], biases[3 * n_out:]]
        else:
            mats = [weights.reshape(n_out, n_in)]
            vecs = [biases]
        layers.append({"kind": kind, "input": inp, "activation": act,
                       "weights": [m.astype(np.float32) for m in mats],
                       "biases": [v.astype(np.float32) for v in vecs]})
    return ModelFile(frame, layers, gain_layer, vad_layer, lookahead,
                     speech_protection, bin_layer)


def layers_without_bin_head(model, path):
    """A ModelFile's layers without its bin-gain head (docs/model-format.md):
    the network train.py trains, which bin_head.py gives a head to. The
    head must be the last layer, so that no other layer's index moves."""
    if not model.bin_layer:
        return list(model.layers)
    if model.bin_layer != len(model.layers) - 1:
        sys.exit("%s: its bin-gain head (layer %d) is not its last layer"
                 % (path, model.bin_layer))
    return list(model.layers[:-1])


def bounded_inputs(layers, i):
    """Whether layer i reads values bounded by 1."""
    src = layers[i]["input"]
    if src == 0:
        return False
    src = layers[src - 1]
    return src["kind"] == GRU or src["activation"] in (TANH, SIGMOID)


def int8x8_weight_types(layers):
    """Weight type per layer of the int8x8 variant: int8x8 for the layers
    that read values bounded by 1, float32 for the others."""
    return [S8X8 if bounded_inputs(layers, i) else F32
            for i in range(len(layers))]
