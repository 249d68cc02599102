/* rnndenoise — dsp: frame configuration shared by framing, features and the
 * model file
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_CONFIG_H
#define DSP_CONFIG_H

#include <glib.h>

G_BEGIN_DECLS

#define DSP_MAX_BANDS 32
/* Largest hop and window the code accepts (samples); bounds stack scratch. */
#define DSP_MAX_HOP 1024
#define DSP_MAX_WINDOW 2048
#define DSP_MAX_BINS (DSP_MAX_WINDOW / 2 + 1)

/**
 * DspFrameConfig:
 * @sample_rate: Hz (48000 for the shipped model).
 * @hop: samples per frame and per channel (480 = 10 ms at 48 kHz).
 * @window: analysis/synthesis window length in samples (2 * @hop).
 * @n_bands: number of perceptual bands (20..DSP_MAX_BANDS).
 * @band_edges: @n_bands + 1 ascending FFT-bin indices; band b covers bins
 *   band_edges[b] .. band_edges[b + 1]; the first edge is 0 and the last is
 *   @window / 2.
 * @feature_layout_id: identifies the feature vector the network expects; a
 *   model naming another layout is refused.
 *
 * A plain value type, read from the model file, so that a model at another
 * rate or hop needs no code change.
 */
typedef struct
{
  guint32 sample_rate;
  guint32 hop;
  guint32 window;
  guint32 n_bands;
  guint16 band_edges[DSP_MAX_BANDS + 1];
  guint32 feature_layout_id;
} DspFrameConfig;

/**
 * DSP_FEATURE_LAYOUT_CEPSTRUM_V1:
 *
 * Feature layout 1: per channel and frame, n_bands cepstral coefficients
 * (DCT-II of the log band energies), then the first DSP_FEATURE_N_DELTA of
 * them differentiated once over time, then the same ones differentiated
 * twice: n_bands + 2 * DSP_FEATURE_N_DELTA values.
 */
#define DSP_FEATURE_LAYOUT_CEPSTRUM_V1 1
#define DSP_FEATURE_N_DELTA 6

/**
 * DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2:
 *
 * Feature layout 2: layout 1, then n_bands values that say how far each
 * band's energy stands above its stationary noise floor, in log10 units:
 * log10 (E[b] + DSP_FEATURES_ENERGY_FLOOR) - N[b], where N[b] tracks the
 * minimum of the smoothed log energy and rises at most
 * DSP_FEATURES_FLOOR_RISE per frame (see dsp_features_compute()). Tells the
 * network what has been there all along (hum, fans, room noise):
 * n_bands + 2 * DSP_FEATURE_N_DELTA + n_bands values.
 */
#define DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2 2

/**
 * DSP_FEATURE_LAYOUT_PITCH_V3:
 *
 * Feature layout 3: layout 2, then n_bands pitch correlations, each band's
 * normalised correlation (-1 .. 1) of the frame with the frame one pitch
 * period earlier, then the pitch search's own correlation (0 .. 1) and the
 * pitch as log2 (f0 / 100 Hz) (see dsp_pitch_features()). Tells the network
 * which bands repeat with a voice's period: 3 * n_bands + 2 *
 * DSP_FEATURE_N_DELTA + DSP_FEATURE_N_PITCH values.
 */
#define DSP_FEATURE_LAYOUT_PITCH_V3 3
#define DSP_FEATURE_N_PITCH 2
/* Where layout 3's pitch part starts in a feature row. */
#define DSP_PITCH_FEATURES_OFFSET(n_bands) \
  (2 * (n_bands) + 2 * DSP_FEATURE_N_DELTA)
#define DSP_MAX_FEATURES \
  (3 * DSP_MAX_BANDS + 2 * DSP_FEATURE_N_DELTA + DSP_FEATURE_N_PITCH)

/* Number of features per channel and frame for a layout, or 0 if the layout
 * is unknown. */
static inline guint
dsp_feature_layout_n_features (guint32 layout_id, guint n_bands)
{
  switch (layout_id) {
    case DSP_FEATURE_LAYOUT_CEPSTRUM_V1:
      return n_bands + 2 * DSP_FEATURE_N_DELTA;
    case DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2:
      return 2 * n_bands + 2 * DSP_FEATURE_N_DELTA;
    case DSP_FEATURE_LAYOUT_PITCH_V3:
      return 3 * n_bands + 2 * DSP_FEATURE_N_DELTA + DSP_FEATURE_N_PITCH;
    default:
      return 0;
  }
}

G_END_DECLS

#endif /* DSP_CONFIG_H */
