# SPDX-License-Identifier: LGPL-2.1-or-later
"""Read the features files written by rnndenoise-features.

Layout (little-endian): "RNDF", u32 version 1, sample_rate, hop, window,
n_bands, feature_layout_id, n_features, row_size, n_sequences, n_frames;
n_bands + 1 u32 band edges; n_frames rows of row_size float32
([features | band gains | vad]); n_sequences u32 frame counts.
"""

import struct

import numpy as np

MAGIC = b"RNDF"
VERSION = 1
HEADER_FIELDS = ("version", "sample_rate", "hop", "window", "n_bands",
                 "feature_layout_id", "n_features", "row_size",
                 "n_sequences", "n_frames")
HEADER_SIZE = 4 + 4 * len(HEADER_FIELDS)


class FeatureFile:
    """A features file in memory.

    Attributes: header (dict of the header fields), band_edges (list of
    n_bands + 1 bins), features (n_frames x n_features), gains
    (n_frames x n_bands, -1 where a band is empty), vad (n_frames) and
    lengths (frames per sequence).
    """

    def __init__(self, path):
        with open(path, "rb") as f:
            data = f.read()
        if data[:4] != MAGIC:
            raise ValueError("%s: not a features file" % path)
        values = struct.unpack_from("<%dI" % len(HEADER_FIELDS), data, 4)
        self.header = dict(zip(HEADER_FIELDS, values))
        h = self.header
        if h["version"] != VERSION:
            raise ValueError("%s: version %d, expected %d"
                             % (path, h["version"], VERSION))
        n_edges = h["n_bands"] + 1
        self.band_edges = list(struct.unpack_from("<%dI" % n_edges, data,
                                                  HEADER_SIZE))
        at = HEADER_SIZE + 4 * n_edges
        n_values = h["n_frames"] * h["row_size"]
        rows = np.frombuffer(data, dtype="<f4", count=n_values, offset=at)
        rows = rows.reshape(h["n_frames"], h["row_size"])
        self.lengths = np.frombuffer(data, dtype="<u4",
                                     count=h["n_sequences"],
                                     offset=at + 4 * n_values).astype(int)
        if self.lengths.sum() != h["n_frames"]:
            raise ValueError("%s: sequence lengths do not add up" % path)
        nf, nb = h["n_features"], h["n_bands"]
        self.features = np.array(rows[:, :nf])
        self.gains = np.array(rows[:, nf:nf + nb])
        self.vad = np.array(rows[:, nf + nb])

    def append(self, other):
        """Add the sequences of another features file of the same layout."""
        if other.frame_config() != self.frame_config():
            raise ValueError("features files of different layouts")
        self.features = np.concatenate([self.features, other.features])
        self.gains = np.concatenate([self.gains, other.gains])
        self.vad = np.concatenate([self.vad, other.vad])
        self.lengths = np.concatenate([self.lengths, other.lengths])
        self.header["n_sequences"] = len(self.lengths)
        self.header["n_frames"] = len(self.vad)

    def sequences(self):
        """Yield (start, length) of each sequence in frame rows."""
        start = 0
        for n in self.lengths:
            yield start, int(n)
            start += int(n)

    def frame_config(self):
        """The frame layout as a dict, for the model file header."""
        h = self.header
        return {"sample_rate": h["sample_rate"], "hop": h["hop"],
                "window": h["window"], "n_bands": h["n_bands"],
                "feature_layout_id": h["feature_layout_id"],
                "n_features": h["n_features"],
                "band_edges": list(self.band_edges)}
