/* rnndenoise — dsp: default and validated frame configurations
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp_error.h"
#include "dsp_frame_config.h"

/* Default layout: a 10 ms hop, so FFT bins are 50 Hz apart at any rate. */
#define DEFAULT_FRAMES_PER_SECOND 100
#define DEFAULT_N_BANDS_WIDE 24 /* sample rates of 32 kHz and above */
#define DEFAULT_N_BANDS_NARROW 20
#define DEFAULT_MIN_BAND_BINS 2 /* 100 Hz */
/* Layout 2: finer bands below 1 kHz, where hum and the voice's first
 * harmonics live. */
#define FINE_N_BANDS_WIDE 32
#define FINE_N_BANDS_NARROW 24
#define FINE_MIN_BAND_BINS 1 /* 50 Hz */

/* ERB-number scale (Glasberg and Moore) and its inverse, f in Hz. */
static double
erb_from_hz (double f)
{
  return 21.4 * log10 (1.0 + 0.00437 * f);
}

static double
hz_from_erb (double e)
{
  return (pow (10.0, e / 21.4) - 1.0) / 0.00437;
}

/**
 * dsp_frame_config_init_default:
 * @cfg: the configuration to fill.
 * @sample_rate: Hz; a multiple of 100 from 8000 to 96000.
 * @error: return location for a #DSP_ERROR_UNSUPPORTED error.
 *
 * Fills @cfg with the default layout: a 10 ms hop (480 samples at 48 kHz,
 * 160 at 16 kHz), a window of two hops, feature layout 1, and 24 bands (20
 * below 32 kHz) equally spaced on the ERB-number scale from 0 Hz to
 * @sample_rate / 2, each at least 2 bins (100 Hz) wide. The edges are made
 * one at a time: each spreads the bands still to place evenly over the ERB
 * range still left, rounds to the nearest bin and widens to the minimum.
 * At 48 kHz the edges are 0 2 4 6 8 11 14 18 22 27 33 41 50 61 74 90 109 132
 * 159 191 230 277 333 400 480.
 *
 * Returns: TRUE, or FALSE with @error set and @cfg untouched.
 */
gboolean
dsp_frame_config_init_default (DspFrameConfig *cfg, guint sample_rate,
    GError **error)
{
  return dsp_frame_config_init_layout (cfg, sample_rate,
      DSP_FEATURE_LAYOUT_CEPSTRUM_V1, error);
}

/**
 * dsp_frame_config_init_layout:
 * @cfg: the configuration to fill.
 * @sample_rate: Hz; a multiple of 100 from 8000 to 96000.
 * @layout_id: DSP_FEATURE_LAYOUT_CEPSTRUM_V1,
 *   DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2 or DSP_FEATURE_LAYOUT_PITCH_V3.
 * @error: return location for a #DSP_ERROR_UNSUPPORTED error.
 *
 * Layout 1 gives dsp_frame_config_init_default()'s bands. Layouts 2 and 3
 * have 32 bands (24 below 32 kHz), each at least 1 bin (50 Hz) wide, made
 * the same way; at 48 kHz the edges are 0 1 2 3 4 5 6 8 10 12 15 18 22 26 31 37 43
 * 50 59 69 80 93 108 126 146 170 197 229 266 308 357 414 480.
 *
 * Returns: TRUE, or FALSE with @error set and @cfg untouched.
 */
gboolean
dsp_frame_config_init_layout (DspFrameConfig *cfg, guint sample_rate,
    guint32 layout_id, GError **error)
{
  DspFrameConfig c;
  guint b, last, min_bins;
  double bin_hz;
  gboolean wide = sample_rate >= 32000;

  g_return_val_if_fail (cfg != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (dsp_feature_layout_n_features (layout_id, DSP_FEATURE_N_DELTA) == 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "feature layout %u is unknown (supported: %u, %u, %u)", layout_id,
        DSP_FEATURE_LAYOUT_CEPSTRUM_V1, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2,
        DSP_FEATURE_LAYOUT_PITCH_V3);
    return FALSE;
  }

  if (sample_rate < 8000 || sample_rate > 96000
      || sample_rate % DEFAULT_FRAMES_PER_SECOND != 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "sample rate %u Hz has no default frame layout (need a multiple of "
        "100 from 8000 to 96000)",
        sample_rate);
    return FALSE;
  }

  memset (&c, 0, sizeof (c));
  c.sample_rate = sample_rate;
  c.hop = sample_rate / DEFAULT_FRAMES_PER_SECOND;
  c.window = 2 * c.hop;
  c.feature_layout_id = layout_id;
  if (layout_id == DSP_FEATURE_LAYOUT_CEPSTRUM_V1) {
    c.n_bands = wide ? DEFAULT_N_BANDS_WIDE : DEFAULT_N_BANDS_NARROW;
    min_bins = DEFAULT_MIN_BAND_BINS;
  } else {
    c.n_bands = wide ? FINE_N_BANDS_WIDE : FINE_N_BANDS_NARROW;
    min_bins = FINE_MIN_BAND_BINS;
  }

  last = c.window / 2;
  bin_hz = (double) sample_rate / c.window;
  c.band_edges[0] = 0;
  for (b = 1; b < c.n_bands; b++) {
    double lo = erb_from_hz (c.band_edges[b - 1] * bin_hz);
    double step = (erb_from_hz (sample_rate / 2.0) - lo) / (c.n_bands - b + 1);
    guint k = (guint) lround (hz_from_erb (lo + step) / bin_hz);

    k = MAX (k, (guint) c.band_edges[b - 1] + min_bins);
    k = MIN (k, last - (c.n_bands - b));
    c.band_edges[b] = (guint16) k;
  }
  c.band_edges[c.n_bands] = (guint16) last;

  *cfg = c;
  return TRUE;
}

/**
 * dsp_frame_config_validate:
 * @cfg: the configuration to check.
 * @error: return location for a #DSP_ERROR_INVALID or
 *   #DSP_ERROR_UNSUPPORTED error.
 *
 * Checks every field: sample_rate in DSP_MIN_SAMPLE_RATE ..
 * DSP_MAX_SAMPLE_RATE Hz; hop in 1 .. DSP_MAX_HOP samples; window equal to
 * 2 * hop and at most DSP_MAX_WINDOW; n_bands in 1 .. DSP_MAX_BANDS (and at
 * least DSP_FEATURE_N_DELTA for layout 1); band_edges[0 .. n_bands] strictly
 * ascending from 0 to window / 2; a known feature layout. The message names
 * the first bad field and its value.
 *
 * Returns: TRUE if @cfg is usable, else FALSE with @error set.
 */
gboolean
dsp_frame_config_validate (const DspFrameConfig *cfg, GError **error)
{
  guint b;

  g_return_val_if_fail (cfg != NULL, FALSE);
  g_return_val_if_fail (error == NULL || *error == NULL, FALSE);

  if (cfg->sample_rate < DSP_MIN_SAMPLE_RATE
      || cfg->sample_rate > DSP_MAX_SAMPLE_RATE) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "sample_rate %u Hz is outside %u..%u Hz", cfg->sample_rate,
        DSP_MIN_SAMPLE_RATE, DSP_MAX_SAMPLE_RATE);
    return FALSE;
  }
  if (cfg->hop < 1 || cfg->hop > DSP_MAX_HOP) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "hop %u samples is outside 1..%u", cfg->hop, DSP_MAX_HOP);
    return FALSE;
  }
  if (cfg->window != 2 * cfg->hop) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "window %u samples, expected 2 * hop = %u", cfg->window, 2 * cfg->hop);
    return FALSE;
  }
  if (cfg->window > DSP_MAX_WINDOW) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "window %u samples exceeds %u", cfg->window, DSP_MAX_WINDOW);
    return FALSE;
  }
  if (cfg->n_bands < 1 || cfg->n_bands > DSP_MAX_BANDS) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "n_bands %u is outside 1..%u", cfg->n_bands, DSP_MAX_BANDS);
    return FALSE;
  }
  if (cfg->band_edges[0] != 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "band_edges[0] is %u, expected 0", cfg->band_edges[0]);
    return FALSE;
  }
  for (b = 1; b <= cfg->n_bands; b++) {
    if (cfg->band_edges[b] <= cfg->band_edges[b - 1]) {
      g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
          "band_edges[%u] is %u, not above band_edges[%u] = %u", b,
          cfg->band_edges[b], b - 1, cfg->band_edges[b - 1]);
      return FALSE;
    }
  }
  if (cfg->band_edges[cfg->n_bands] != cfg->window / 2) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "band_edges[%u] is %u, expected window / 2 = %u", cfg->n_bands,
        cfg->band_edges[cfg->n_bands], cfg->window / 2);
    return FALSE;
  }
  if (dsp_feature_layout_n_features (cfg->feature_layout_id, cfg->n_bands)
      == 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "feature_layout_id %u is unknown (supported: %u, %u, %u)",
        cfg->feature_layout_id, DSP_FEATURE_LAYOUT_CEPSTRUM_V1,
        DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, DSP_FEATURE_LAYOUT_PITCH_V3);
    return FALSE;
  }
  if (cfg->n_bands < DSP_FEATURE_N_DELTA) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "n_bands %u is below %u, the deltas of feature layout %u", cfg->n_bands,
        DSP_FEATURE_N_DELTA, cfg->feature_layout_id);
    return FALSE;
  }

  return TRUE;
}

/**
 * dsp_frame_config_get_n_bins:
 * @cfg: a valid configuration.
 *
 * Returns: the number of FFT bins of one spectrum, window / 2 + 1; a spectrum
 *   buffer holds twice as many floats (interleaved real, imaginary).
 */
guint
dsp_frame_config_get_n_bins (const DspFrameConfig *cfg)
{
  g_return_val_if_fail (cfg != NULL, 0);

  return cfg->window / 2 + 1;
}
