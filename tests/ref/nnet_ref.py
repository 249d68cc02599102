#!/usr/bin/python3
# rnndenoise — independent numpy reference for the network layers and the
# model file format (docs/model-format.md).
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# Run:  /usr/bin/python3 tests/ref/nnet_ref.py [OUTDIR]   (default
# tests/unit/data). It writes, with fixed seeds:
#
#   model_f32.rnnm, model_s8.rnnm  one small network, float and int8 weights
#   model_s8x8.rnnm                the same with int8x8 weights (quantised
#                                  inputs) where its inputs are bounded
#   model_ref.bin                  its inputs and outputs over 8 frames, batch 2
#   nnet_ref.bin                   a lone GRU and a lone dense layer, in/out
#
# The C tests (tests/unit/test_nnet.c, test_model.c) compare against these
# committed files; nothing here is produced by the C code. The forward pass
# follows PyTorch's nn.GRU equations in float64 from the float32 parameters.
#
# *.bin files hold named arrays: "RREF", u32 version 1, u32 count, then per
# array u32 name length, the name (ASCII, no NUL), u32 type (0 = f32,
# 1 = int8), u32 number of values, the values; all little-endian.

import os
import struct
import sys
import zlib

import numpy as np

DENSE, GRU = 1, 2
LINEAR, TANH, SIGMOID, RELU = 0, 1, 2, 3
F32, S8, S8X8 = 0, 1, 2
FEATURES = 0  # a layer's input field: 0 = features, k + 1 = layer k

# The default 48 kHz layout (dsp_frame_config_init_default).
SAMPLE_RATE, HOP, WINDOW = 48000, 480, 960
BAND_EDGES = [0, 2, 4, 6, 8, 11, 14, 18, 22, 27, 33, 41, 50, 61, 74, 90, 109,
              132, 159, 191, 230, 277, 333, 400, 480]
N_BANDS = len(BAND_EDGES) - 1
LAYOUT_CEPSTRUM_V1 = 1
N_FEATURES = N_BANDS + 2 * 6

# Largest |int8 - float| allowed on model outputs (gains, VAD, hidden state)
# over the reference sequence; test_model.c uses the same value. The script
# checks that the int8 reference itself stays within half of it. The same
# for int8x8.
INT8_TOLERANCE = 0.01
INT8X8_TOLERANCE = 0.01


# ---- math ---------------------------------------------------------------

def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def activation(kind, x):
    return {LINEAR: lambda v: v, TANH: np.tanh, SIGMOID: sigmoid,
            RELU: lambda v: np.maximum(v, 0.0)}[kind](x)


def quantize_rows(w):
    """Per-row symmetric int8: scale = max |w| / 127, q = round-half-even."""
    w = np.asarray(w, dtype=np.float32)
    amax = np.abs(w).max(axis=1)
    scale = np.where(amax > 0, amax / np.float32(127), 1).astype(np.float32)
    q = np.clip(np.rint(w / scale[:, None]), -127, 127).astype(np.int8)
    return q, scale


def dequantize(q, scale):
    return q.astype(np.float64) * scale.astype(np.float64)[:, None]


def quantize_inputs(x):
    """An int8x8 layer's inputs: x * 127 clamped to +-127, rounded half to
    even, NaN as 0 (docs/model-format.md), as float64 multiples of 1/127."""
    v = np.clip(np.asarray(x, dtype=np.float64) * 127.0, -127.0, 127.0)
    return np.rint(np.nan_to_num(v, nan=0.0)) / 127.0


def gru_step(w_ih, w_hh, b_ih, b_hh, x, h, h_in=None):
    """PyTorch nn.GRU, one step; rows of x and h are batch rows. h_in, when
    given, is what the recurrent matrix reads instead of h (the quantised
    state of an int8x8 layer)."""
    hid = h.shape[1]
    gi = x @ w_ih.T + b_ih
    gh = (h if h_in is None else h_in) @ w_hh.T + b_hh
    r = sigmoid(gi[:, :hid] + gh[:, :hid])
    z = sigmoid(gi[:, hid:2 * hid] + gh[:, hid:2 * hid])
    n = np.tanh(gi[:, 2 * hid:] + r * gh[:, 2 * hid:])
    return (1.0 - z) * n + z * h


# ---- the network ----------------------------------------------------------

class Layer:
    def __init__(self, kind, inp, in_size, out_size, act, rng):
        self.kind, self.input = kind, inp
        self.in_size, self.out_size, self.act = in_size, out_size, act
        if kind == GRU:
            k = 1.0 / np.sqrt(out_size)
            self.w = [rng.uniform(-k, k, (3 * out_size, in_size)),
                      rng.uniform(-k, k, (3 * out_size, out_size))]
            self.b = [rng.uniform(-k, k, 3 * out_size),
                      rng.uniform(-k, k, 3 * out_size)]
        else:
            k = 1.5 / np.sqrt(in_size)
            self.w = [rng.uniform(-k, k, (out_size, in_size))]
            self.b = [rng.uniform(-0.2, 0.2, out_size)]
        self.w = [m.astype(np.float32) for m in self.w]
        self.b = [v.astype(np.float32) for v in self.b]

    def weight_type(self, wtype, layers):
        """This layer's weight type in a model of type wtype: int8x8 only
        where the inputs are bounded by 1 (a GRU's, a tanh or sigmoid
        layer's outputs), float32 elsewhere."""
        if wtype != S8X8:
            return wtype
        if self.input == FEATURES:
            return F32
        src = layers[self.input - 1]
        return S8X8 if src.kind == GRU or src.act in (TANH, SIGMOID) else F32

    def matrices(self, wtype):
        """float64 weight matrices as the given weight type computes them."""
        if wtype in (S8, S8X8):
            return [dequantize(*quantize_rows(m)) for m in self.w]
        return [m.astype(np.float64) for m in self.w]


def make_network(seed):
    rng = np.random.default_rng(seed)
    layers = [
        Layer(DENSE, FEATURES, N_FEATURES, 24, TANH, rng),  # 0
        Layer(GRU, 1, 24, 24, LINEAR, rng),                 # 1
        Layer(GRU, 2, 24, 32, LINEAR, rng),                 # 2
        Layer(DENSE, 3, 32, 16, RELU, rng),                 # 3
        Layer(DENSE, 4, 16, N_BANDS, SIGMOID, rng),         # 4: gains
        Layer(DENSE, 2, 24, 1, SIGMOID, rng),               # 5: VAD
    ]
    return layers, 4, 5


def forward(layers, gain_layer, vad_layer, wtype, features, hidden):
    """One frame for all batch rows; hidden is a list (one per GRU) of
    (batch, H) arrays, replaced. Returns gains, vad."""
    outs = []
    g = 0
    for layer in layers:
        x = features if layer.input == FEATURES else outs[layer.input - 1]
        lt = layer.weight_type(wtype, layers)
        m = layer.matrices(lt)
        b = [v.astype(np.float64) for v in layer.b]
        q = quantize_inputs if lt == S8X8 else (lambda v: v)
        if layer.kind == GRU:
            hidden[g] = gru_step(m[0], m[1], b[0], b[1], q(x), hidden[g],
                                 q(hidden[g]))
            outs.append(hidden[g])
            g += 1
        else:
            outs.append(activation(layer.act, q(x) @ m[0].T + b[0]))
    return outs[gain_layer], outs[vad_layer][:, 0]


# ---- the model file -------------------------------------------------------

def write_model(path, layers, gain_layer, vad_layer, wtype, lookahead=0):
    """A model file of the reference network's layers; lookahead is the
    header field (layer 0's input size must match it)."""
    n = len(layers)
    edges = struct.pack("<%dH" % len(BAND_EDGES), *BAND_EDGES)
    edges += b"\0" * (-len(edges) % 4)
    table_start = 48 + len(edges)
    data = bytearray()
    data_start = table_start + 48 * n
    records = b""

    def put(blob):
        off = data_start + len(data)
        data.extend(blob)
        data.extend(b"\0" * (-len(data) % 4))
        return off, len(blob)

    for layer in layers:
        lt = layer.weight_type(wtype, layers)
        if lt in (S8, S8X8):
            qs = [quantize_rows(m) for m in layer.w]
            wblob = b"".join(q.tobytes() for q, _ in qs)
            sblob = b"".join(s.astype("<f4").tobytes() for _, s in qs)
        else:
            wblob = b"".join(m.astype("<f4").tobytes() for m in layer.w)
            sblob = b""
        bblob = b"".join(v.astype("<f4").tobytes() for v in layer.b)
        w = put(wblob)
        b = put(bblob)
        s = put(sblob) if sblob else (0, 0)
        records += struct.pack("<6I6I", layer.kind, layer.input, layer.in_size,
                               layer.out_size, layer.act, lt, *w, *b, *s)
    size = data_start + len(data) + 4
    head = b"RNDM" + struct.pack("<11I", 1, size, SAMPLE_RATE, HOP, WINDOW,
                                 N_BANDS, LAYOUT_CEPSTRUM_V1, n, gain_layer,
                                 vad_layer, lookahead)
    body = head + edges + records + bytes(data)
    assert len(body) + 4 == size
    with open(path, "wb") as f:
        f.write(body + struct.pack("<I", zlib.crc32(body)))


def write_arrays(path, arrays):
    out = bytearray(b"RREF" + struct.pack("<II", 1, len(arrays)))
    for name, a in arrays:
        a = np.asarray(a)
        if a.dtype == np.int8:
            kind, blob = 1, a.tobytes()
        else:
            kind, blob = 0, a.astype("<f4").tobytes()
        out += struct.pack("<I", len(name)) + name.encode("ascii")
        out += struct.pack("<II", kind, a.size) + blob
    with open(path, "wb") as f:
        f.write(out)


# ---- reference sets -------------------------------------------------------

def model_reference(outdir):
    layers, gain_layer, vad_layer = make_network(20240601)
    rng = np.random.default_rng(7)
    frames, batch = 8, 2
    feats = rng.normal(0.0, 1.0, (frames, batch, N_FEATURES)).astype(np.float32)
    gru_sizes = [layer.out_size for layer in layers if layer.kind == GRU]
    h0 = []
    for hid in gru_sizes:
        h = np.zeros((batch, hid), dtype=np.float32)
        h[1] = rng.uniform(-0.5, 0.5, hid)
        h0.append(h)
    arrays = [("features", feats),
              ("h0", np.concatenate([h.ravel() for h in h0]))]
    results = {}
    for wtype, tag in ((F32, "f32"), (S8, "s8"), (S8X8, "s8x8")):
        write_model(os.path.join(outdir, "model_%s.rnnm" % tag), layers,
                    gain_layer, vad_layer, wtype)
        hidden = [h.astype(np.float64) for h in h0]
        gains, vads, states = [], [], []
        for t in range(frames):
            g, v = forward(layers, gain_layer, vad_layer, wtype,
                           feats[t].astype(np.float64), hidden)
            gains.append(g)
            vads.append(v)
            states.append(np.concatenate([h.ravel() for h in hidden]))
        results[tag] = (np.array(gains), np.array(vads), np.array(states))
        arrays += [("gains_" + tag, results[tag][0]),
                   ("vad_" + tag, results[tag][1]),
                   ("hidden_" + tag, results[tag][2])]
    for tag, tolerance in (("s8", INT8_TOLERANCE),
                           ("s8x8", INT8X8_TOLERANCE)):
        dev = max(np.abs(a - b).max() for a, b in zip(results["f32"],
                                                       results[tag]))
        print("model: %s vs float max deviation %.5f (tolerance %.3f)"
              % (tag, dev, tolerance))
        assert dev < tolerance / 2
    write_arrays(os.path.join(outdir, "model_ref.bin"), arrays)


def nnet_reference(outdir):
    rng = np.random.default_rng(42)
    n_in, hid, frames, batch = 37, 21, 6, 2
    k = 1.0 / np.sqrt(hid)
    w_ih = rng.uniform(-k, k, (3 * hid, n_in)).astype(np.float32)
    w_hh = rng.uniform(-k, k, (3 * hid, hid)).astype(np.float32)
    b_ih = rng.uniform(-k, k, 3 * hid).astype(np.float32)
    b_hh = rng.uniform(-k, k, 3 * hid).astype(np.float32)
    x = rng.normal(0.0, 1.0, (frames, batch, n_in)).astype(np.float32)
    h0 = rng.uniform(-0.9, 0.9, (batch, hid)).astype(np.float32)
    q_ih, s_ih = quantize_rows(w_ih)
    q_hh, s_hh = quantize_rows(w_hh)
    arrays = [("gru_w_ih", w_ih), ("gru_w_hh", w_hh), ("gru_b_ih", b_ih),
              ("gru_b_hh", b_hh), ("gru_x", x), ("gru_h0", h0),
              ("gru_q_ih", q_ih), ("gru_s_ih", s_ih), ("gru_q_hh", q_hh),
              ("gru_s_hh", s_hh)]
    for tag, wi, wh in (("f32", w_ih.astype(np.float64),
                         w_hh.astype(np.float64)),
                        ("s8", dequantize(q_ih, s_ih),
                         dequantize(q_hh, s_hh))):
        h = h0.astype(np.float64)
        out = []
        for t in range(frames):
            h = gru_step(wi, wh, b_ih.astype(np.float64),
                         b_hh.astype(np.float64), x[t].astype(np.float64), h)
            out.append(h)
        arrays.append(("gru_h_" + tag, np.array(out)))

    n_in, n_out = 29, 11
    w = rng.uniform(-0.5, 0.5, (n_out, n_in)).astype(np.float32)
    b = rng.uniform(-0.5, 0.5, n_out).astype(np.float32)
    xd = rng.normal(0.0, 1.0, (batch, n_in)).astype(np.float32)
    q, s = quantize_rows(w)
    arrays += [("dense_w", w), ("dense_b", b), ("dense_x", xd),
               ("dense_q", q), ("dense_s", s)]
    for act, name in ((LINEAR, "linear"), (TANH, "tanh"),
                      (SIGMOID, "sigmoid"), (RELU, "relu")):
        y = xd.astype(np.float64) @ w.astype(np.float64).T + b
        arrays.append(("dense_y_" + name, activation(act, y)))
        y = xd.astype(np.float64) @ dequantize(q, s).T + b
        arrays.append(("dense_y_s8_" + name, activation(act, y)))
    write_arrays(os.path.join(outdir, "nnet_ref.bin"), arrays)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    outdir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        here, "..", "unit", "data")
    os.makedirs(outdir, exist_ok=True)
    model_reference(outdir)
    nnet_reference(outdir)


if __name__ == "__main__":
    main()
