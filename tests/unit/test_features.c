/* rnndenoise — unit tests for dsp/dsp_features and dsp/dsp_frame_config
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <check.h>

#include "check_main.h"
#include "model_helper.h"
#include <glib.h>

#include "dsp/dsp_error.h"
#include "dsp/dsp_features.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_stft.h"

#define N_FRAMES 40

static void
make_noise (guint32 seed, gfloat *x, guint len)
{
  GRand *rand = g_rand_new_with_seed (seed);
  guint n;

  for (n = 0; n < len; n++)
    x[n] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
  g_rand_free (rand);
}

/* ---- config ---- */

START_TEST (test_config_default)
{
  static const guint16 edges_48k[] = { 0, 2, 4, 6, 8, 11, 14, 18, 22, 27, 33,
    41, 50, 61, 74, 90, 109, 132, 159, 191, 230, 277, 333, 400, 480 };
  static const guint rates[] = { 8000, 16000, 32000, 44100, 48000, 96000 };
  DspFrameConfig cfg;
  GError *error = NULL;
  guint i;

  model_helper_default_config (&cfg, 48000);
  ck_assert_uint_eq (cfg.sample_rate, 48000);
  ck_assert_uint_eq (cfg.hop, 480);
  ck_assert_uint_eq (cfg.window, 960);
  ck_assert_uint_eq (cfg.n_bands, 24);
  ck_assert_uint_eq (cfg.feature_layout_id, DSP_FEATURE_LAYOUT_CEPSTRUM_V1);
  for (i = 0; i < G_N_ELEMENTS (edges_48k); i++)
    ck_assert_uint_eq (cfg.band_edges[i], edges_48k[i]);
  ck_assert_uint_eq (dsp_frame_config_get_n_bins (&cfg), 481);

  model_helper_default_config (&cfg, 16000);
  ck_assert_uint_eq (cfg.hop, 160);
  ck_assert_uint_eq (cfg.window, 320);
  ck_assert_uint_eq (cfg.n_bands, 20);
  ck_assert_uint_eq (cfg.band_edges[cfg.n_bands], 160);

  for (i = 0; i < G_N_ELEMENTS (rates); i++) {
    model_helper_default_config (&cfg, rates[i]);
    ck_assert_msg (dsp_frame_config_validate (&cfg, &error), "%u Hz: %s",
        rates[i], error ? error->message : "");
    ck_assert_uint_ge (cfg.n_bands, 20);
    ck_assert_uint_le (cfg.n_bands, DSP_MAX_BANDS);
  }
}
END_TEST

START_TEST (test_config_default_unsupported)
{
  static const guint rates[] = { 0, 7900, 12345, 96100, 192000 };
  DspFrameConfig cfg;
  GError *error = NULL;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rates); i++) {
    memset (&cfg, 0x5a, sizeof (cfg));
    ck_assert (!dsp_frame_config_init_default (&cfg, rates[i], &error));
    ck_assert (g_error_matches (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED));
    ck_assert_uint_eq (cfg.hop, 0x5a5a5a5a);
    g_clear_error (&error);
  }
}
END_TEST

/* Each row breaks one field of the default 48 kHz config. */
typedef struct
{
  const char *field; /* must appear in the message */
  void (*mutate) (DspFrameConfig *cfg);
  gint code;
} BadConfig;

static void
bad_rate_low (DspFrameConfig *cfg)
{
  cfg->sample_rate = 100;
}

static void
bad_rate_high (DspFrameConfig *cfg)
{
  cfg->sample_rate = 400000;
}

static void
bad_hop_zero (DspFrameConfig *cfg)
{
  cfg->hop = 0;
}

static void
bad_hop_large (DspFrameConfig *cfg)
{
  cfg->hop = DSP_MAX_HOP + 1;
  cfg->window = 2 * cfg->hop;
}

static void
bad_window (DspFrameConfig *cfg)
{
  cfg->window = 1024;
}

static void
bad_n_bands_zero (DspFrameConfig *cfg)
{
  cfg->n_bands = 0;
}

static void
bad_n_bands_large (DspFrameConfig *cfg)
{
  cfg->n_bands = DSP_MAX_BANDS + 1;
}

static void
bad_n_bands_few (DspFrameConfig *cfg)
{
  guint b;

  cfg->n_bands = DSP_FEATURE_N_DELTA - 1;
  for (b = 0; b <= cfg->n_bands; b++)
    cfg->band_edges[b] = (guint16) (b * cfg->window / 2 / cfg->n_bands);
}

static void
bad_first_edge (DspFrameConfig *cfg)
{
  cfg->band_edges[0] = 1;
}

static void
bad_edge_order (DspFrameConfig *cfg)
{
  cfg->band_edges[5] = cfg->band_edges[4];
}

static void
bad_last_edge (DspFrameConfig *cfg)
{
  cfg->band_edges[cfg->n_bands] = (guint16) (cfg->window / 2 - 1);
}

static void
bad_layout (DspFrameConfig *cfg)
{
  cfg->feature_layout_id = 7;
}

static const BadConfig bad_configs[] = {
  { "sample_rate", bad_rate_low, DSP_ERROR_INVALID },
  { "sample_rate", bad_rate_high, DSP_ERROR_INVALID },
  { "hop", bad_hop_zero, DSP_ERROR_INVALID },
  { "hop", bad_hop_large, DSP_ERROR_INVALID },
  { "window", bad_window, DSP_ERROR_INVALID },
  { "n_bands", bad_n_bands_zero, DSP_ERROR_INVALID },
  { "n_bands", bad_n_bands_large, DSP_ERROR_INVALID },
  { "n_bands", bad_n_bands_few, DSP_ERROR_INVALID },
  { "band_edges[0]", bad_first_edge, DSP_ERROR_INVALID },
  { "band_edges[5]", bad_edge_order, DSP_ERROR_INVALID },
  { "band_edges[24]", bad_last_edge, DSP_ERROR_INVALID },
  { "feature_layout_id 7", bad_layout, DSP_ERROR_UNSUPPORTED },
};

START_TEST (test_config_validate_rejects)
{
  const BadConfig *bad = &bad_configs[_i];
  DspFrameConfig cfg;
  GError *error = NULL;

  model_helper_default_config (&cfg, 48000);
  ck_assert (dsp_frame_config_validate (&cfg, NULL));
  bad->mutate (&cfg);
  ck_assert (!dsp_frame_config_validate (&cfg, &error));
  ck_assert (g_error_matches (error, DSP_ERROR, bad->code));
  ck_assert_msg (strstr (error->message, bad->field) != NULL,
      "message \"%s\" does not name %s", error->message, bad->field);
  g_clear_error (&error);
  /* NULL error is allowed. */
  ck_assert (!dsp_frame_config_validate (&cfg, NULL));
}
END_TEST

/* ---- features ---- */

START_TEST (test_features_length)
{
  static const guint rates[] = { 48000, 16000 };
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS] = { 0.0f };
  gfloat features[DSP_MAX_FEATURES + 1];
  guint n;

  model_helper_default_config (&cfg, rates[_i]);
  feat = dsp_features_new (&cfg);
  n = dsp_features_get_n_features (feat);
  ck_assert_uint_eq (n,
      dsp_feature_layout_n_features (cfg.feature_layout_id, cfg.n_bands));
  ck_assert_uint_eq (n, cfg.n_bands + 2 * DSP_FEATURE_N_DELTA);
  /* Nothing is written past the feature vector. */
  features[n] = 12345.0f;
  dsp_features_compute (feat, spectrum, features, NULL);
  ck_assert_float_eq (features[n], 12345.0f);
  ck_assert_uint_eq (dsp_features_history_size (feat), 2 * DSP_FEATURE_N_DELTA);
  dsp_features_free (NULL);
}
END_TEST

/* Runs @in (n_frames hops) through a DspStft and DspFeatures; @features gets
 * n_frames rows of n_features. */
static void
run_features (const DspFrameConfig *cfg, DspFeatures *feat, const gfloat *in,
    gfloat *features, guint n_frames)
{
  g_autoptr (DspStft) stft = dsp_stft_new (cfg);
  gfloat spectrum[2 * DSP_MAX_BINS];
  guint n_features = dsp_features_get_n_features (feat), t;

  for (t = 0; t < n_frames; t++) {
    dsp_stft_analyze (stft, in + t * cfg->hop, spectrum);
    dsp_features_compute (feat, spectrum, features + t * n_features, NULL);
  }
}

START_TEST (test_features_silence_and_constant)
{
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat *in, *features;
  guint nf, len, i, t;

  model_helper_default_config (&cfg, 48000);
  feat = dsp_features_new (&cfg);
  nf = dsp_features_get_n_features (feat);
  len = N_FRAMES * cfg.hop;
  in = g_new0 (gfloat, len);
  features = g_new (gfloat, N_FRAMES * nf);

  /* Silence: finite, and no deltas since the history starts as silence. */
  run_features (&cfg, feat, in, features, N_FRAMES);
  for (i = 0; i < N_FRAMES * nf; i++)
    ck_assert (isfinite (features[i]));
  for (t = 0; t < N_FRAMES; t++)
    for (i = cfg.n_bands; i < nf; i++)
      ck_assert_float_eq_tol (features[t * nf + i], 0.0f, 1e-6f);

  /* Full-scale DC and a constant -1. */
  for (i = 0; i < len; i++)
    in[i] = 1.0f;
  dsp_features_reset (feat);
  run_features (&cfg, feat, in, features, N_FRAMES);
  for (i = 0; i < N_FRAMES * nf; i++)
    ck_assert (isfinite (features[i]));
  for (i = 0; i < len; i++)
    in[i] = -1.0f;
  run_features (&cfg, feat, in, features, N_FRAMES);
  for (i = 0; i < N_FRAMES * nf; i++)
    ck_assert (isfinite (features[i]));

  g_free (in);
  g_free (features);
}
END_TEST

START_TEST (test_features_stationary_deltas)
{
  static const guint rates[] = { 48000, 16000 };
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS];
  gfloat *in, *features;
  guint nf, len, i, t;

  model_helper_default_config (&cfg, rates[_i]);
  feat = dsp_features_new (&cfg);
  nf = dsp_features_get_n_features (feat);
  len = N_FRAMES * cfg.hop;
  in = g_new (gfloat, len);
  features = g_new (gfloat, N_FRAMES * nf);

  /* 1 kHz (a whole number of periods per hop) plus 400 Hz: every frame
   * sees the same samples once the window is full. */
  for (i = 0; i < len; i++) {
    guint p = i % cfg.hop;

    in[i] = (gfloat) (0.5 * sin (2 * G_PI * 1000.0 * p / cfg.sample_rate)
        + 0.25 * cos (2 * G_PI * 400.0 * p / cfg.sample_rate));
  }
  run_features (&cfg, feat, in, features, N_FRAMES);
  /* Frame 1 is the first full window; deltas vanish from frame 3 on. */
  for (t = 3; t < N_FRAMES; t++) {
    for (i = 0; i < cfg.n_bands; i++)
      ck_assert (isfinite (features[t * nf + i]));
    for (i = cfg.n_bands; i < nf; i++)
      ck_assert_float_eq_tol (features[t * nf + i], 0.0f, 1e-5f);
  }
  /* Early frames see the onset. */
  ck_assert_float_gt (fabsf (features[cfg.n_bands]), 1.0f);

  /* The same spectrum over and over gives exactly zero deltas. */
  make_noise (5, in, cfg.window);
  {
    g_autoptr (DspStft) stft = dsp_stft_new (&cfg);

    dsp_stft_analyze (stft, in, spectrum);
    dsp_stft_analyze (stft, in + cfg.hop, spectrum);
  }
  for (t = 0; t < 3; t++)
    dsp_features_compute (feat, spectrum, features, NULL);
  for (i = cfg.n_bands; i < nf; i++)
    ck_assert (features[i] == 0.0f);

  g_free (in);
  g_free (features);
}
END_TEST

/* Layouts 1 and 2: history sizes 12 and 12 + 2 * 32. */
START_TEST (test_features_history_continuation)
{
  static const guint32 layouts[]
      = { DSP_FEATURE_LAYOUT_CEPSTRUM_V1, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2 };
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) whole = NULL;
  g_autoptr (DspFeatures) first = NULL;
  g_autoptr (DspFeatures) second = NULL;
  g_autoptr (DspStft) stft = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS], silence[2 * DSP_MAX_BINS] = { 0.0f };
  gfloat history[2 * DSP_FEATURE_N_DELTA + 2 * DSP_MAX_BANDS];
  gfloat scratch[DSP_MAX_FEATURES];
  gfloat *in, *ref, *out;
  guint nf, len, t, cut = 13;

  ck_assert (dsp_frame_config_init_layout (&cfg, 48000, layouts[_i], NULL));
  whole = dsp_features_new (&cfg);
  first = dsp_features_new (&cfg);
  second = dsp_features_new (&cfg);
  stft = dsp_stft_new (&cfg);
  nf = dsp_features_get_n_features (whole);
  ck_assert_uint_eq (dsp_features_history_size (whole),
      2 * DSP_FEATURE_N_DELTA + (_i == 1 ? 2 * cfg.n_bands : 0));
  len = N_FRAMES * cfg.hop;
  in = g_new (gfloat, len);
  ref = g_new (gfloat, N_FRAMES * nf);
  out = g_new (gfloat, N_FRAMES * nf);
  make_noise (77, in, len);

  /* Scale the noise so band energies change from frame to frame. */
  for (t = 0; t < len; t++)
    in[t] *= (gfloat) (0.5 + 0.5 * sin (t * 0.001));

  run_features (&cfg, whole, in, ref, N_FRAMES);

  /* The STFT keeps running; only the feature extractor is swapped. */
  for (t = 0; t < N_FRAMES; t++) {
    dsp_stft_analyze (stft, in + t * cfg.hop, spectrum);
    if (t < cut) {
      dsp_features_compute (first, spectrum, out + t * nf, NULL);
      /* The second extractor sees another stream before the import. */
      dsp_features_compute (second, silence, scratch, NULL);
    } else {
      if (t == cut) {
        dsp_features_save_history (first, history);
        dsp_features_load_history (second, history);
      }
      dsp_features_compute (second, spectrum, out + t * nf, NULL);
    }
  }
  ck_assert_int_eq (memcmp (ref, out, sizeof (gfloat) * N_FRAMES * nf), 0);

  g_free (in);
  g_free (ref);
  g_free (out);
}
END_TEST

/* ---- layout 2: noise floor ---- */

START_TEST (test_config_layout2)
{
  static const guint16 edges_48k[]
      = { 0, 1, 2, 3, 4, 5, 6, 8, 10, 12, 15, 18, 22, 26, 31, 37, 43, 50, 59,
          69, 80, 93, 108, 126, 146, 170, 197, 229, 266, 308, 357, 414, 480 };
  DspFrameConfig cfg;
  GError *error = NULL;
  guint i;

  ck_assert (dsp_frame_config_init_layout (&cfg, 48000,
      DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, &error));
  ck_assert_uint_eq (cfg.n_bands, 32);
  for (i = 0; i < G_N_ELEMENTS (edges_48k); i++)
    ck_assert_uint_eq (cfg.band_edges[i], edges_48k[i]);
  ck_assert (dsp_frame_config_validate (&cfg, NULL));
  ck_assert_uint_eq (dsp_feature_layout_n_features (cfg.feature_layout_id,
                         cfg.n_bands),
      32 + 2 * DSP_FEATURE_N_DELTA + 32);
  ck_assert (dsp_frame_config_init_layout (&cfg, 16000,
      DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, NULL));
  ck_assert_uint_eq (cfg.n_bands, 24);
  ck_assert (dsp_frame_config_validate (&cfg, NULL));

  ck_assert (!dsp_frame_config_init_layout (&cfg, 48000, 4, &error));
  ck_assert (g_error_matches (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED));
  ck_assert_ptr_nonnull (strstr (error->message, "supported: 1, 2, 3"));
  g_clear_error (&error);
}
END_TEST

/* Layout 3 has layout 2's bands and history; its rows add the pitch part
 * (n_bands + DSP_FEATURE_N_PITCH values, dsp_pitch_features(), tested in
 * test_pitch), after layout 2's values, which it computes alike. */
START_TEST (test_config_layout3)
{
  DspFrameConfig cfg2, cfg3;
  g_autoptr (DspFeatures) feat2 = NULL;
  g_autoptr (DspFeatures) feat3 = NULL;
  g_autoptr (DspStft) stft = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS], row2[DSP_MAX_FEATURES];
  gfloat row3[DSP_MAX_FEATURES], in[DSP_MAX_HOP];
  guint rates[] = { 48000, 16000 }, r, t, n;

  for (r = 0; r < G_N_ELEMENTS (rates); r++) {
    ck_assert (dsp_frame_config_init_layout (&cfg2, rates[r],
        DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, NULL));
    ck_assert (dsp_frame_config_init_layout (&cfg3, rates[r],
        DSP_FEATURE_LAYOUT_PITCH_V3, NULL));
    ck_assert (dsp_frame_config_validate (&cfg3, NULL));
    ck_assert_uint_eq (cfg3.n_bands, cfg2.n_bands);
    ck_assert_int_eq (memcmp (cfg3.band_edges, cfg2.band_edges,
                          sizeof (cfg2.band_edges)),
        0);
    ck_assert_uint_eq (dsp_feature_layout_n_features (
                           DSP_FEATURE_LAYOUT_PITCH_V3, cfg3.n_bands),
        3 * cfg3.n_bands + 2 * DSP_FEATURE_N_DELTA + DSP_FEATURE_N_PITCH);
    ck_assert_uint_eq (DSP_PITCH_FEATURES_OFFSET (cfg3.n_bands),
        dsp_feature_layout_n_features (DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2,
            cfg3.n_bands));
    ck_assert_uint_le (dsp_feature_layout_n_features (
                           DSP_FEATURE_LAYOUT_PITCH_V3, DSP_MAX_BANDS),
        DSP_MAX_FEATURES);

    feat2 = dsp_features_new (&cfg2);
    feat3 = dsp_features_new (&cfg3);
    stft = dsp_stft_new (&cfg3);
    ck_assert_uint_eq (dsp_features_history_size (feat3),
        dsp_features_history_size (feat2));
    for (t = 0; t < 20; t++) {
      for (n = 0; n < cfg3.hop; n++)
        in[n] = 0.1f * sinf (0.01f * (gfloat) (t * cfg3.hop + n) * (1 + t));
      dsp_stft_analyze (stft, in, spectrum);
      dsp_features_compute (feat2, spectrum, row2, NULL);
      dsp_features_compute (feat3, spectrum, row3, NULL);
      ck_assert_int_eq (memcmp (row2, row3,
                            sizeof (gfloat)
                                * DSP_PITCH_FEATURES_OFFSET (cfg3.n_bands)),
          0);
    }
    g_clear_pointer (&feat2, dsp_features_free);
    g_clear_pointer (&feat3, dsp_features_free);
    g_clear_pointer (&stft, dsp_stft_free);
  }
}
END_TEST

/* A steady noise sits on its floor (feature near 0 once tracked); a loud
 * tone that starts later stands far above it in its own band; the first
 * frame after a reset reads exactly 0 (the floor starts unknown and the
 * first frame sets it). */
START_TEST (test_features_noise_floor)
{
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  g_autoptr (DspStft) stft = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS], features[DSP_MAX_FEATURES];
  gfloat in[DSP_MAX_HOP];
  const gfloat *above;
  GRand *rand = g_rand_new_with_seed (5);
  guint t, n, b, nb, tone_band = 0;
  double sum_steady = 0.0;

  ck_assert (dsp_frame_config_init_layout (&cfg, 48000,
      DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, NULL));
  feat = dsp_features_new (&cfg);
  stft = dsp_stft_new (&cfg);
  nb = cfg.n_bands;
  above = features + nb + 2 * DSP_FEATURE_N_DELTA;
  /* 1 kHz falls in band tone_band: bins 20 (1 kHz at 50 Hz per bin). */
  while (cfg.band_edges[tone_band + 1] <= 20)
    tone_band++;

  for (t = 0; t < 400; t++) {
    for (n = 0; n < cfg.hop; n++) {
      in[n] = 0.01f * (gfloat) g_rand_double_range (rand, -1.0, 1.0);
      if (t >= 300)
        in[n] += 0.3f
            * sinf (
                2.0f * G_PI * 1000.0f * (t * cfg.hop + n) / cfg.sample_rate);
    }
    dsp_stft_analyze (stft, in, spectrum);
    dsp_features_compute (feat, spectrum, features, NULL);
    if (t == 0) {
      for (b = 0; b < nb; b++)
        ck_assert (above[b] == 0.0f);
    }
    if (t >= 200 && t < 300) {
      for (b = 0; b < nb; b++)
        sum_steady += fabs (above[b]);
    }
  }
  /* Steady noise: on average within 3 dB of its floor (a frame can be
   * below the floor, which tracks the smoothed level). */
  ck_assert (sum_steady / (100.0 * nb) < 0.3);
  /* The tone, 100 frames after it began: still over 20 dB above. */
  ck_assert (above[tone_band] > 2.0f);

  dsp_features_reset (feat);
  dsp_features_compute (feat, spectrum, features, NULL);
  for (b = 0; b < nb; b++)
    ck_assert (above[b] == 0.0f);
  g_rand_free (rand);
}
END_TEST

/* ---- band energies ---- */

START_TEST (test_features_energies)
{
  static const guint rates[] = { 48000, 16000 };
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  g_autoptr (DspStft) stft = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS], in[2 * DSP_MAX_HOP];
  gfloat energies[DSP_MAX_BANDS], energies2[DSP_MAX_BANDS];
  gfloat features[DSP_MAX_FEATURES];
  double total = 0.0, bands = 0.0;
  guint k, b;

  model_helper_default_config (&cfg, rates[_i]);
  feat = dsp_features_new (&cfg);
  stft = dsp_stft_new (&cfg);
  make_noise (9, in, cfg.window);
  dsp_stft_analyze (stft, in, spectrum);
  dsp_stft_analyze (stft, in + cfg.hop, spectrum);

  dsp_features_band_energies (feat, spectrum, energies);
  for (k = 0; k < dsp_frame_config_get_n_bins (&cfg); k++)
    total += spectrum[2 * k] * spectrum[2 * k]
        + spectrum[2 * k + 1] * spectrum[2 * k + 1];
  for (b = 0; b < cfg.n_bands; b++) {
    ck_assert_float_gt (energies[b], 0.0f);
    bands += energies[b];
  }
  /* The band weights sum to 1 per bin. */
  ck_assert_double_eq_tol (bands, total, 1e-5 * total);

  /* compute() reports the same energies. */
  dsp_features_compute (feat, spectrum, features, energies2);
  ck_assert_int_eq (memcmp (energies, energies2, sizeof (gfloat) * cfg.n_bands),
      0);
}
END_TEST

/* ---- gains ---- */

START_TEST (test_gains_interpolate)
{
  static const guint rates[] = { 48000, 16000 };
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat band_gains[DSP_MAX_BANDS], bin_gains[DSP_MAX_BINS];
  guint n_bins, k, b;

  model_helper_default_config (&cfg, rates[_i]);
  feat = dsp_features_new (&cfg);
  n_bins = dsp_frame_config_get_n_bins (&cfg);

  for (b = 0; b < cfg.n_bands; b++)
    band_gains[b] = 1.0f;
  dsp_features_interpolate_gains (feat, band_gains, bin_gains);
  for (k = 0; k < n_bins; k++)
    ck_assert (bin_gains[k] == 1.0f);

  /* Alternating gains: bins stay within range, band centres hit exactly
   * where the centre falls on a bin. */
  for (b = 0; b < cfg.n_bands; b++)
    band_gains[b] = b % 2 ? 0.25f : 0.75f;
  dsp_features_interpolate_gains (feat, band_gains, bin_gains);
  for (k = 0; k < n_bins; k++) {
    ck_assert_float_ge (bin_gains[k], 0.25f);
    ck_assert_float_le (bin_gains[k], 0.75f);
  }
  ck_assert_float_eq (bin_gains[0], 0.75f);
  ck_assert_float_eq (bin_gains[n_bins - 1], band_gains[cfg.n_bands - 1]);
  for (b = 0; b < cfg.n_bands; b++) {
    guint sum = cfg.band_edges[b] + cfg.band_edges[b + 1];

    if (sum % 2 == 0)
      ck_assert_float_eq (bin_gains[sum / 2], band_gains[b]);
  }
}
END_TEST

START_TEST (test_gains_attenuation_limit)
{
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS], bin_gains[DSP_MAX_BINS];
  guint n_bins, k;

  model_helper_default_config (&cfg, 16000);
  feat = dsp_features_new (&cfg);
  n_bins = dsp_frame_config_get_n_bins (&cfg);

  ck_assert_float_eq (dsp_features_gain_floor (0.0f), 0.0f);
  ck_assert_float_eq_tol (dsp_features_gain_floor (20.0f), 0.1f, 1e-7f);
  ck_assert_float_eq_tol (dsp_features_gain_floor (6.0f), 0.501187f, 1e-6f);

  /* 20 dB limit: a zero gain becomes 0.1, a gain above it stays. */
  for (k = 0; k < n_bins; k++) {
    spectrum[2 * k] = 2.0f;
    spectrum[2 * k + 1] = -4.0f;
    bin_gains[k] = k % 2 ? 0.5f : 0.0f;
  }
  dsp_features_apply_gains (feat, bin_gains, 20.0f, spectrum);
  for (k = 0; k < n_bins; k++) {
    gfloat g = k % 2 ? 0.5f : 0.1f;

    ck_assert_float_eq_tol (spectrum[2 * k], 2.0f * g, 1e-6f);
    ck_assert_float_eq_tol (spectrum[2 * k + 1], -4.0f * g, 1e-6f);
  }

  /* 0 dB means no limit: zero gains silence the bins. */
  for (k = 0; k < n_bins; k++) {
    spectrum[2 * k] = 2.0f;
    spectrum[2 * k + 1] = -4.0f;
    bin_gains[k] = 0.0f;
  }
  dsp_features_apply_gains (feat, bin_gains, 0.0f, spectrum);
  for (k = 0; k < 2 * n_bins; k++)
    ck_assert_float_eq (spectrum[k], 0.0f);
}
END_TEST

/* The noise-floor limit reads the tracker's state, log10 of the smoothed
 * band energy S and of the floor F (given as S - F, at least 0, by
 * dsp_features_smoothed_above_floor()): each gain is held at or below
 * sqrt (1 - a F / S) and not below DSP_FEATURES_FLOOR_MIN_GAIN; a = 0 and
 * layout 1 leave the gains alone; values far off (as a damaged snapshot
 * could hold them) give the minimum or 1, never NaN. */
START_TEST (test_gains_noise_floor_limit)
{
  /* S - F per band, cycled: the gain limits at a = 1.5 below. */
  static const gfloat above[]
      = { 2.0f, 0.0f, -3.0f, 1.0f, 1e4f, -65536.0f, 0.5f };
  const gfloat min_gain = DSP_FEATURES_FLOOR_MIN_GAIN;
  const gfloat expected[] = { sqrtf (1.0f - 1.5f * 0.01f), min_gain, min_gain,
    0.5f /* its own gain, below the limit */, 1.0f, min_gain,
    MAX (sqrtf (1.0f - 1.5f / sqrtf (10.0f)), min_gain) };
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  g_autoptr (DspFeatures) feat_v1 = NULL;
  gfloat history[2 * DSP_FEATURE_N_DELTA + 2 * DSP_MAX_BANDS] = { 0 };
  gfloat gains[DSP_MAX_BANDS];
  gfloat *smoothed = history + 2 * DSP_FEATURE_N_DELTA;
  guint nb, b;

  ck_assert (dsp_frame_config_init_layout (&cfg, 48000,
      DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, NULL));
  feat = dsp_features_new (&cfg);
  nb = cfg.n_bands;
  ck_assert_uint_eq (dsp_features_history_size (feat),
      2 * DSP_FEATURE_N_DELTA + 2 * nb);
  for (b = 0; b < nb; b++) {
    gfloat a = above[b % G_N_ELEMENTS (above)];

    /* Either side may be the far-off one. */
    smoothed[b] = a >= 0.0f ? a - 5.0f : -5.0f;
    smoothed[nb + b] = a >= 0.0f ? -5.0f : -5.0f - a;
    gains[b] = b % G_N_ELEMENTS (above) == 3 ? 0.5f : 1.0f;
  }
  dsp_features_load_history (feat, history);

  {
    gfloat got[DSP_MAX_BANDS];

    ck_assert (dsp_features_smoothed_above_floor (feat, got));
    for (b = 0; b < nb; b++)
      ck_assert_float_eq (got[b], MAX (above[b % G_N_ELEMENTS (above)], 0.0f));
  }

  dsp_features_limit_to_noise_floor (feat, 0.0f, gains);
  for (b = 0; b < nb; b++)
    ck_assert_float_eq (gains[b], b % G_N_ELEMENTS (above) == 3 ? 0.5f : 1.0f);

  dsp_features_limit_to_noise_floor (feat, 1.5f, gains);
  for (b = 0; b < nb; b++) {
    ck_assert_float_eq_tol (gains[b], expected[b % G_N_ELEMENTS (above)],
        1e-6f);
    ck_assert (isfinite (gains[b]));
  }

  /* Layout 1 tracks no floor: nothing changes. */
  model_helper_default_config (&cfg, 48000);
  ck_assert_uint_eq (cfg.feature_layout_id, DSP_FEATURE_LAYOUT_CEPSTRUM_V1);
  feat_v1 = dsp_features_new (&cfg);
  for (b = 0; b < cfg.n_bands; b++)
    gains[b] = 0.75f;
  dsp_features_limit_to_noise_floor (feat_v1, 4.0f, gains);
  for (b = 0; b < cfg.n_bands; b++)
    ck_assert_float_eq (gains[b], 0.75f);
  ck_assert (!dsp_features_smoothed_above_floor (feat_v1, gains));
  ck_assert_float_eq (gains[0], 0.75f);
}
END_TEST

/* Sets bin @k of @spectrum to power @power (and phase 0). */
static void
set_bin_power (gfloat *spectrum, guint k, gfloat power)
{
  spectrum[2 * k] = sqrtf (power);
  spectrum[2 * k + 1] = 0.0f;
}

/* Every bin of @spectrum at power 1 and every gain at @gain. */
static void
fill_flat (gfloat *spectrum, gfloat *gains, guint n_bins, gfloat gain)
{
  guint k;

  for (k = 0; k < n_bins; k++) {
    set_bin_power (spectrum, k, 1.0f);
    gains[k] = gain;
  }
}

/* The lift below 4 kHz: over a flat spectrum of power 1 with band gains of
 * 0.5, a bin of power P whose 5 neighbours sum to 4 + P has noise
 * 0.75 (4 + P) / 5 and gets sqrt (1 - noise / P), capped at 0.5 (1 + lift)
 * and 1, never below 0.5; flat bins and bins next to a peak keep 0.5;
 * a bin below DSP_FEATURES_LIFT_MIN_GAIN, the two edge bins and the bins
 * above DSP_FEATURES_LIFT_MAX_HZ keep their gains; lift 0 changes nothing. */
START_TEST (test_gains_lift_peaks)
{
  static const guint rates[] = { 48000, 16000 };
  /* Bins 50 Hz apart at both rates: bin 20 is 1 kHz, bin 80 4 kHz. */
  const guint low_peak = 5, mid_peak = 10, high_peak = 16, band_peak = 60,
              above = (guint) (DSP_FEATURES_LIFT_MAX_HZ / 50.0) + 10, edge = 1,
              quiet = 13;
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS], gains[DSP_MAX_BINS], lifted[DSP_MAX_BINS];
  gfloat power[DSP_MAX_BINS];
  gfloat lifts[] = { 0.0f, 0.5f, 1.0f };
  guint n_bins, k, i;

  model_helper_default_config (&cfg, rates[_i]);
  ck_assert_uint_eq (cfg.sample_rate / (cfg.window / 2), 100);
  ck_assert_uint_lt (above, cfg.window / 2 + 1);
  feat = dsp_features_new (&cfg);
  n_bins = dsp_frame_config_get_n_bins (&cfg);
  fill_flat (spectrum, gains, n_bins, 0.5f);
  set_bin_power (spectrum, low_peak, 16.0f);
  set_bin_power (spectrum, mid_peak, 2.25f);
  set_bin_power (spectrum, high_peak, 16.0f);
  set_bin_power (spectrum, band_peak, 16.0f);
  set_bin_power (spectrum, above, 16.0f);
  set_bin_power (spectrum, edge, 16.0f);
  set_bin_power (spectrum, quiet, 16.0f);
  gains[quiet] = 0.1f;
  gains[high_peak] = 0.8f;
  /* The powers of the bins up to 4 kHz and the 2 beyond, no more. */
  ck_assert_uint_eq (dsp_features_low_bin_powers (feat, spectrum, power),
      (guint) (DSP_FEATURES_LIFT_MAX_HZ / 50.0) + 1
          + DSP_FEATURES_LIFT_HALF_WIDTH);
  ck_assert_float_eq (power[low_peak], 16.0f);
  ck_assert_float_eq (power[mid_peak], 2.25f);

  for (i = 0; i < G_N_ELEMENTS (lifts); i++) {
    gfloat cap = MIN (1.0f + lifts[i], 1.0f / 0.5f);

    memcpy (lifted, gains, sizeof (gfloat) * n_bins);
    dsp_features_lift_peaks (feat, power, lifts[i], lifted);
    if (lifts[i] == 0.0f) {
      ck_assert_int_eq (memcmp (lifted, gains, sizeof (gfloat) * n_bins), 0);
      continue;
    }
    /* 16 among 1s: noise 0.75 * 20 / 5 = 3, sqrt (13 / 16). */
    ck_assert_float_eq_tol (lifted[low_peak],
        MIN (sqrtf (13.0f / 16.0f), 0.5f * cap), 1e-6f);
    /* The same between 1 and 4 kHz, where the bands span harmonics. */
    ck_assert_float_eq_tol (lifted[band_peak],
        MIN (sqrtf (13.0f / 16.0f), 0.5f * cap), 1e-6f);
    /* 2.25 among 1s: noise 0.75 * 6.25 / 5, sqrt (1 - 0.9375 / 2.25). */
    ck_assert_float_eq_tol (lifted[mid_peak],
        MIN (sqrtf (1.0f - 0.9375f / 2.25f), 0.5f * cap), 1e-6f);
    /* Gain 0.8: noise 0.36 * 20 / 5, sqrt (1 - 1.44 / 16), capped at 1. */
    ck_assert_float_eq_tol (lifted[high_peak],
        MIN (sqrtf (1.0f - 1.44f / 16.0f),
            MIN (0.8f * (1.0f + lifts[i]), 1.0f)),
        1e-6f);
    for (k = 0; k < n_bins; k++) {
      if (k != low_peak && k != mid_peak && k != high_peak && k != band_peak)
        ck_assert_float_eq (lifted[k], gains[k]);
    }
  }
}
END_TEST

/* Keeping what stands above the floor, below 300 Hz: over a flat spectrum
 * of power 1 with every band at its floor (share 1) a bin of power 16 at
 * 150 Hz, whose 5 neighbours sum to 20, has noise 3 * 20 / 5 = 12 and gets
 * sqrt (1 - 12 / 16) = 0.5; flat bins (noise 3) keep their gain. With
 * every band 10 dB above its floor (share 0.1) the peak gets
 * sqrt (1 - 1.2 / 16), the flat bin at 300 Hz whose neighbours are all 1
 * sqrt (1 - 0.3), the peak's flat neighbours (noise 1.2) keep theirs. A
 * higher gain is never lowered; a peak at 0 Hz (the edge) or above
 * 300 Hz, and any bin where the floor distance is NaN, keep their
 * gains. */
START_TEST (test_gains_keep_above_floor)
{
  static const guint rates[] = { 48000, 16000 };
  /* Bins 50 Hz apart at both rates. */
  const guint peak = 3, flat = 6, above_max = 10, edge = 0;
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat spectrum[2 * DSP_MAX_BINS], gains[DSP_MAX_BINS], kept[DSP_MAX_BINS];
  gfloat power[DSP_MAX_BINS], above[DSP_MAX_BANDS];
  guint n_bins, k, b;

  model_helper_default_config (&cfg, rates[_i]);
  ck_assert_uint_eq (cfg.sample_rate / (cfg.window / 2), 100);
  feat = dsp_features_new (&cfg);
  n_bins = dsp_frame_config_get_n_bins (&cfg);
  fill_flat (spectrum, gains, n_bins, 0.05f);
  set_bin_power (spectrum, peak, 16.0f);
  set_bin_power (spectrum, above_max, 16.0f);
  set_bin_power (spectrum, edge, 16.0f);
  dsp_features_low_bin_powers (feat, spectrum, power);

  for (b = 0; b < cfg.n_bands; b++)
    above[b] = 0.0f;
  memcpy (kept, gains, sizeof (gfloat) * n_bins);
  dsp_features_keep_above_floor (feat, power, above, kept);
  for (k = 0; k < n_bins; k++)
    ck_assert_float_eq_tol (kept[k], (k == peak ? 0.5f : gains[k]), 1e-6f);

  for (b = 0; b < cfg.n_bands; b++)
    above[b] = 1.0f;
  memcpy (kept, gains, sizeof (gfloat) * n_bins);
  dsp_features_keep_above_floor (feat, power, above, kept);
  for (k = 0; k < n_bins; k++) {
    gfloat want = k == peak ? sqrtf (1.0f - 1.2f / 16.0f)
        : k == flat         ? sqrtf (0.7f)
                            : gains[k];

    ck_assert_float_eq_tol (kept[k], want, 1e-6f);
  }

  /* Only raised. */
  memcpy (kept, gains, sizeof (gfloat) * n_bins);
  kept[peak] = 0.99f;
  dsp_features_keep_above_floor (feat, power, above, kept);
  ck_assert_float_eq (kept[peak], 0.99f);

  for (b = 0; b < cfg.n_bands; b++)
    above[b] = NAN;
  memcpy (kept, gains, sizeof (gfloat) * n_bins);
  dsp_features_keep_above_floor (feat, power, above, kept);
  ck_assert_int_eq (memcmp (kept, gains, sizeof (gfloat) * n_bins), 0);
}
END_TEST

/* The speech hold raises each bin to at least share times its gain in the
 * frame before, over every bin of the frame (the top one too), and never
 * lowers one; a share of 0 or NaN leaves the gains as they are, one above
 * 1 acts as 1. Every call, held or not, leaves the frame's gains as the
 * ones the next frame holds from. */
START_TEST (test_gains_hold)
{
  static const guint rates[] = { 48000, 16000 };
  DspFrameConfig cfg;
  g_autoptr (DspFeatures) feat = NULL;
  gfloat prev[DSP_MAX_BINS], before[DSP_MAX_BINS];
  gfloat gains[DSP_MAX_BINS], held[DSP_MAX_BINS];
  guint n_bins, k;
  gsize size;

  model_helper_default_config (&cfg, rates[_i]);
  feat = dsp_features_new (&cfg);
  n_bins = dsp_frame_config_get_n_bins (&cfg);
  size = sizeof (gfloat) * n_bins;
  for (k = 0; k < n_bins; k++) {
    prev[k] = (gfloat) ((k * 7) % 11) / 10.0f;
    gains[k] = (gfloat) ((k * 3) % 13) / 12.0f;
  }
  memcpy (before, prev, size);
  memcpy (held, gains, size);
  dsp_features_hold_gains (feat, before, 0.8f, held);
  for (k = 0; k < n_bins; k++)
    ck_assert_float_eq (held[k], MAX (gains[k], 0.8f * prev[k]));
  ck_assert_float_eq (held[n_bins - 1],
      MAX (gains[n_bins - 1], 0.8f * prev[n_bins - 1]));
  ck_assert_int_eq (memcmp (before, held, size), 0);

  memcpy (before, prev, size);
  memcpy (held, gains, size);
  dsp_features_hold_gains (feat, before, 2.0f, held);
  for (k = 0; k < n_bins; k++)
    ck_assert_float_eq (held[k], MAX (gains[k], prev[k]));

  memcpy (held, gains, size);
  memcpy (before, prev, size);
  dsp_features_hold_gains (feat, before, 0.0f, held);
  ck_assert_int_eq (memcmp (before, gains, size), 0);
  memcpy (before, prev, size);
  dsp_features_hold_gains (feat, before, NAN, held);
  ck_assert_int_eq (memcmp (held, gains, size), 0);
  ck_assert_int_eq (memcmp (before, gains, size), 0);

  /* A NaN in the frame before holds nothing. */
  for (k = 0; k < n_bins; k++)
    before[k] = NAN;
  dsp_features_hold_gains (feat, before, 0.8f, held);
  ck_assert_int_eq (memcmp (held, gains, size), 0);
}
END_TEST

static Suite *
features_suite (void)
{
  Suite *s = suite_create ("features");
  TCase *tc;

  tc = tcase_create ("config");
  tcase_add_test (tc, test_config_default);
  tcase_add_test (tc, test_config_default_unsupported);
  tcase_add_loop_test (tc, test_config_validate_rejects, 0,
      G_N_ELEMENTS (bad_configs));
  suite_add_tcase (s, tc);

  tc = tcase_create ("features");
  tcase_add_loop_test (tc, test_features_length, 0, 2);
  tcase_add_test (tc, test_features_silence_and_constant);
  tcase_add_loop_test (tc, test_features_stationary_deltas, 0, 2);
  suite_add_tcase (s, tc);

  tc = tcase_create ("history");
  tcase_add_loop_test (tc, test_features_history_continuation, 0, 2);
  suite_add_tcase (s, tc);

  tc = tcase_create ("energies");
  tcase_add_loop_test (tc, test_features_energies, 0, 2);
  suite_add_tcase (s, tc);

  tc = tcase_create ("noise-floor");
  tcase_add_test (tc, test_config_layout2);
  tcase_add_test (tc, test_config_layout3);
  tcase_add_test (tc, test_features_noise_floor);
  suite_add_tcase (s, tc);

  tc = tcase_create ("gains");
  tcase_add_loop_test (tc, test_gains_interpolate, 0, 2);
  tcase_add_test (tc, test_gains_attenuation_limit);
  tcase_add_test (tc, test_gains_noise_floor_limit);
  tcase_add_loop_test (tc, test_gains_lift_peaks, 0, 2);
  tcase_add_loop_test (tc, test_gains_keep_above_floor, 0, 2);
  tcase_add_loop_test (tc, test_gains_hold, 0, 2);
  suite_add_tcase (s, tc);

  return s;
}

RNN_CHECK_MAIN (features_suite);
