# SPDX-License-Identifier: LGPL-2.1-or-later
"""The denoising network in PyTorch, shaped as the model file can hold it.

    features -> normalise -> dense (tanh) -> GRU -> GRU -+-> dense (sigmoid)
                                                          |   band gains
                                                          +-> dense (sigmoid)
                                                              VAD

The feature normalisation (training-set mean and standard deviation) is a
fixed buffer; the exporter folds it into the first dense layer, so the
model file sees raw features, as the element computes them.

A network with lookahead L reads n_features = (1 + L) x one frame's
features: the frame's own, then the next L frames'. Its first layer is two
modules, `inp` for the frame's own features and `inp_ahead` (no bias) for
the frames ahead, so that training can give the frames ahead a learning
rate of their own; the model file holds them as one matrix.
"""

import numpy as np
import torch
from torch import nn

# Model file codes (docs/model-format.md).
from modelfile import DENSE, GRU, INPUT_FEATURES, LINEAR, SIGMOID, TANH


class DenoiseNet(nn.Module):
    """Dense -> GRU -> GRU with a gain head and a VAD head."""

    def __init__(self, n_features, n_bands, dense=32, gru1=64, gru2=96,
                 lookahead=0):
        super().__init__()
        self.sizes = {"n_features": n_features, "n_bands": n_bands,
                      "dense": dense, "gru1": gru1, "gru2": gru2}
        if lookahead:
            self.sizes["lookahead"] = lookahead
        self.register_buffer("feat_mean", torch.zeros(n_features))
        self.register_buffer("feat_std", torch.ones(n_features))
        self.own = n_features // (1 + lookahead)
        self.inp = nn.Linear(self.own, dense)
        self.inp_ahead = nn.Linear(n_features - self.own, dense, bias=False) \
            if lookahead else None
        self.gru1 = nn.GRU(dense, gru1, batch_first=True)
        self.gru2 = nn.GRU(gru1, gru2, batch_first=True)
        self.gain = nn.Linear(gru2, n_bands)
        self.vad = nn.Linear(gru2, 1)

    def set_normalisation(self, mean, std):
        """Store the feature mean and standard deviation (floored)."""
        self.feat_mean.copy_(torch.as_tensor(mean, dtype=torch.float32))
        self.feat_std.copy_(torch.clamp(torch.as_tensor(
            std, dtype=torch.float32), min=1e-3))

    def forward(self, x, state=None):
        """x: (batch, frames, n_features) raw features. Returns gains
        (batch, frames, n_bands), vad (batch, frames) and the GRU states."""
        gains, vad, _, states = self.run(x, state)
        return gains, vad, states

    def run(self, x, state=None):
        """As forward(), with the last GRU's output of every frame too:
        gains, vad, that output (batch, frames, gru2) and the states (what
        a bin-gain head reads, bin_head.py)."""
        h1, h2 = state if state is not None else (None, None)
        z = (x - self.feat_mean) / self.feat_std
        y = self.inp(z[..., :self.own])
        if self.inp_ahead is not None:
            y = y + self.inp_ahead(z[..., self.own:])
        y = torch.tanh(y)
        y, h1 = self.gru1(y, h1)
        y, h2 = self.gru2(y, h2)
        gains = torch.sigmoid(self.gain(y))
        vad = torch.sigmoid(self.vad(y)).squeeze(-1)
        return gains, vad, y, (h1, h2)

    def n_params(self):
        """Parameters as the model file stores them (no buffers)."""
        return sum(p.numel() for p in self.parameters())

    def export_layers(self):
        """The layers in model file order, as dicts of float32 numpy arrays:
        kind, input, activation, weights (list of matrices) and biases (list
        of vectors); the normalisation is folded into layer 0. Returns the
        layers, the gain layer index and the VAD layer index."""
        def as_f64(t):
            return t.detach().double().numpy()

        w = as_f64(self.inp.weight)
        if self.inp_ahead is not None:
            w = np.concatenate([w, as_f64(self.inp_ahead.weight)], axis=1)
        w = w / as_f64(self.feat_std)[None, :]
        b = as_f64(self.inp.bias) - w @ as_f64(self.feat_mean)
        layers = [
            {"kind": DENSE, "input": INPUT_FEATURES, "activation": TANH,
             "weights": [w], "biases": [b]},
        ]
        for k, gru in enumerate((self.gru1, self.gru2)):
            layers.append({
                "kind": GRU, "input": k + 1, "activation": LINEAR,
                "weights": [as_f64(gru.weight_ih_l0),
                            as_f64(gru.weight_hh_l0)],
                "biases": [as_f64(gru.bias_ih_l0), as_f64(gru.bias_hh_l0)]})
        for head in (self.gain, self.vad):
            layers.append({"kind": DENSE, "input": 3, "activation": SIGMOID,
                           "weights": [as_f64(head.weight)],
                           "biases": [as_f64(head.bias)]})
        for layer in layers:
            layer["weights"] = [m.astype("float32") for m in layer["weights"]]
            layer["biases"] = [v.astype("float32") for v in layer["biases"]]
        return layers, 3, 4

    def load_layers(self, layers):
        """Copy layers in export_layers()' form (model file order, numpy
        arrays) into the modules, in the network's dtype. Layer 0 becomes
        the input layer as it is: the caller sets the normalisation it was
        made for (identity for a file's folded layer). With lookahead,
        layer 0's first columns (the frame's own features) go to `inp` and
        the others to `inp_ahead`, as export_layers() joined them."""
        modules = (self.inp, self.gru1, self.gru2, self.gain, self.vad)
        with torch.no_grad():
            if self.inp_ahead is not None:
                w = torch.from_numpy(layers[0]["weights"][0])
                self.inp_ahead.weight.copy_(w[:, self.own:])
                layers = [dict(layers[0], weights=[
                    np.ascontiguousarray(layers[0]["weights"][0][:, :self.own])
                ])] + list(layers[1:])
            for layer, mod in zip(layers, modules):
                dtype = mod.bias_ih_l0.dtype if isinstance(mod, nn.GRU) \
                    else mod.bias.dtype
                mats = [torch.from_numpy(m).to(dtype)
                        for m in layer["weights"]]
                vecs = [torch.from_numpy(v).to(dtype)
                        for v in layer["biases"]]
                if isinstance(mod, nn.GRU):
                    mod.weight_ih_l0.copy_(mats[0])
                    mod.weight_hh_l0.copy_(mats[1])
                    mod.bias_ih_l0.copy_(vecs[0])
                    mod.bias_hh_l0.copy_(vecs[1])
                else:
                    mod.weight.copy_(mats[0])
                    mod.bias.copy_(vecs[0])


def load_checkpoint(path):
    """Rebuild a DenoiseNet from a checkpoint written by train.py; returns
    the network (in eval mode) and the checkpoint dict."""
    ckpt = torch.load(path, map_location="cpu")
    net = DenoiseNet(**ckpt["sizes"])
    net.load_state_dict(ckpt["state_dict"])
    net.eval()
    return net, ckpt
