/* rnndenoise — Check suite for librnndenoise: lifecycle, bit-exact
 * agreement with DspProcessor, int16 path, snapshots, errors, settings
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"

#include "dsp/dsp_model.h"
#include "dsp/dsp_processor.h"

#include "rnndenoise.h"

#define RATE 48000
#define LATENCY 1440 /* 30 ms: the 48 kHz model reads one frame ahead */
#define N_SAMPLES (RATE / 2)

static const gchar *
model_path (void)
{
  const gchar *path = g_getenv ("RNNDENOISE_TEST_MODEL");

  ck_assert_ptr_nonnull (path);
  return path;
}

/* A voice-like signal with noise, @n samples per channel of @channels. */
static gfloat *
test_signal (guint n, guint channels, guint seed)
{
  gfloat *x = g_new (gfloat, (gsize) n * channels);
  GRand *rand = g_rand_new_with_seed (seed);
  guint i, c;

  for (i = 0; i < n; i++) {
    for (c = 0; c < channels; c++) {
      gdouble t = (gdouble) i / RATE;
      gdouble f0 = 140.0 + 20.0 * sin (2.0 * G_PI * 3.0 * t) + 30.0 * c;
      gdouble v = 0.2 * sin (2.0 * G_PI * f0 * t)
          + 0.1 * sin (2.0 * G_PI * 2.0 * f0 * t)
          + 0.05 * g_rand_double_range (rand, -1.0, 1.0);
      x[(gsize) i * channels + c] = (gfloat) v;
    }
  }
  g_rand_free (rand);
  return x;
}

/* The reference: DspProcessor on the same model file, in one call. */
static gfloat *
reference_output (const gfloat *in, guint n, guint channels, guint *written)
{
  DspModel *model = dsp_model_new_from_file (model_path (), NULL);
  DspProcessor *proc;
  gfloat *out = g_new0 (gfloat, (gsize) n * channels);

  ck_assert_ptr_nonnull (model);
  proc = dsp_processor_new (model, channels, NULL);
  ck_assert_ptr_nonnull (proc);
  dsp_processor_set_vad_gate (proc, 0.0f, 20);
  *written = dsp_processor_process (proc, in, out, n, NULL, NULL, 0, NULL);
  dsp_processor_free (proc);
  dsp_model_unref (model);
  return out;
}

START_TEST (test_lifecycle)
{
  int err = 1;
  RnnDenoise *st = rnndenoise_new (NULL, 2, &err);

  ck_assert_int_eq (err, RNNDENOISE_OK);
  ck_assert_ptr_nonnull (st);
  ck_assert_int_eq (rnndenoise_get_channels (st), 2);
  ck_assert_int_eq (rnndenoise_get_sample_rate (st), RATE);
  ck_assert_int_eq (rnndenoise_get_latency (st), LATENCY);
  ck_assert_int_eq (rnndenoise_get_frame_size (st), 480);
  ck_assert_float_eq (rnndenoise_get_vad (st), 0.0f);
  ck_assert_str_eq (rnndenoise_get_error_message (st), "");
  rnndenoise_free (st);
  rnndenoise_free (NULL);
  rnndenoise_model_unref (NULL);
  ck_assert_str_eq (rnndenoise_version (), VERSION);
}
END_TEST

START_TEST (test_shared_model)
{
  int err;
  RnnDenoiseModel *model = rnndenoise_model_new_default (&err);
  RnnDenoise *a, *b;

  ck_assert_ptr_nonnull (model);
  ck_assert_int_eq (rnndenoise_model_get_sample_rate (model), RATE);
  a = rnndenoise_new (model, 1, &err);
  b = rnndenoise_new (model, 2, &err);
  ck_assert_ptr_nonnull (a);
  ck_assert_ptr_nonnull (b);
  /* The streams hold their own references: the model may go first. */
  rnndenoise_model_unref (model);
  ck_assert_int_eq (rnndenoise_get_latency (a), LATENCY);
  rnndenoise_free (a);
  rnndenoise_free (b);
}
END_TEST

/* One embedded model per rate: 48 and 16 kHz (10 ms frames; 30 ms latency
 * at both, whose models read one frame ahead); any other rate has
 * none. */
START_TEST (test_default_model_per_rate)
{
  static const int rates[] = { 48000, 16000 };
  static const int latencies[] = { 1440, 480 };
  int err = 0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (rates); i++) {
    RnnDenoiseModel *model
        = rnndenoise_model_new_default_for_rate (rates[i], &err);
    RnnDenoise *st;

    ck_assert_ptr_nonnull (model);
    ck_assert_int_eq (err, RNNDENOISE_OK);
    ck_assert_int_eq (rnndenoise_model_get_sample_rate (model), rates[i]);
    st = rnndenoise_new (model, 1, &err);
    ck_assert_ptr_nonnull (st);
    ck_assert_int_eq (rnndenoise_get_sample_rate (st), rates[i]);
    ck_assert_int_eq (rnndenoise_get_frame_size (st), rates[i] / 100);
    ck_assert_int_eq (rnndenoise_get_latency (st), latencies[i]);
    rnndenoise_free (st);
    rnndenoise_model_unref (model);
  }
  ck_assert_ptr_null (rnndenoise_model_new_default_for_rate (44100, &err));
  ck_assert_int_eq (err, RNNDENOISE_ERROR_MODEL);
}
END_TEST

/* Library output in uneven calls == LATENCY zeros, then DspProcessor's
 * output, bit for bit; for 1 and 2 channels, from the embedded model. */
START_TEST (test_bit_exact_float)
{
  static const guint sizes[] = { 1, 479, 480, 481, 1000, 7, 4096 };
  guint channels = (guint) _i + 1;
  gfloat *in = test_signal (N_SAMPLES, channels, 7);
  gfloat *out = g_new0 (gfloat, (gsize) N_SAMPLES * channels);
  guint written, done = 0, k = 0, n;
  gfloat *ref = reference_output (in, N_SAMPLES, channels, &written);
  RnnDenoise *st = rnndenoise_new (NULL, (int) channels, NULL);

  ck_assert_uint_eq (written, N_SAMPLES - LATENCY);
  while (done < N_SAMPLES) {
    n = MIN (sizes[k++ % G_N_ELEMENTS (sizes)], N_SAMPLES - done);
    ck_assert_int_eq (rnndenoise_process_float (st,
                          in + (gsize) done * channels,
                          out + (gsize) done * channels, (int) n),
        (int) n);
    done += n;
  }
  for (n = 0; n < LATENCY * channels; n++)
    ck_assert_float_eq (out[n], 0.0f);
  ck_assert_int_eq (memcmp (out + LATENCY * channels, ref,
                        (gsize) written * channels * sizeof (gfloat)),
      0);
  ck_assert (
      rnndenoise_get_vad (st) >= 0.0f && rnndenoise_get_vad (st) <= 1.0f);
  rnndenoise_free (st);
  g_free (in);
  g_free (out);
  g_free (ref);
}
END_TEST

/* In place, and from the model file: the same bits. */
START_TEST (test_in_place_from_file)
{
  gchar msg[256];
  int err;
  RnnDenoiseModel *model
      = rnndenoise_model_new_from_file (model_path (), &err, msg, sizeof msg);
  gfloat *in = test_signal (N_SAMPLES, 1, 9);
  gfloat *buf = g_memdup2 (in, N_SAMPLES * sizeof (gfloat));
  guint written;
  gfloat *ref = reference_output (in, N_SAMPLES, 1, &written);
  RnnDenoise *st;

  ck_assert_int_eq (err, RNNDENOISE_OK);
  st = rnndenoise_new (model, 1, &err);
  rnndenoise_model_unref (model);
  ck_assert_int_eq (rnndenoise_process_float (st, buf, buf, N_SAMPLES),
      N_SAMPLES);
  ck_assert_int_eq (memcmp (buf + LATENCY, ref,
                        (gsize) written * sizeof (gfloat)),
      0);
  rnndenoise_free (st);
  g_free (in);
  g_free (buf);
  g_free (ref);
}
END_TEST

/* int16: scaled by 1/32768, rounded and clamped, as the element does. */
START_TEST (test_int16)
{
  gfloat *in = test_signal (N_SAMPLES, 1, 11);
  gint16 *s16 = g_new (gint16, N_SAMPLES);
  gint16 *out16 = g_new (gint16, N_SAMPLES);
  gfloat *f = g_new (gfloat, N_SAMPLES);
  guint i, written;
  gfloat *ref;
  RnnDenoise *st = rnndenoise_new (NULL, 1, NULL);

  for (i = 0; i < N_SAMPLES; i++) {
    s16[i] = (gint16) lrintf (in[i] * 20000.0f);
    f[i] = s16[i] / 32768.0f;
  }
  ref = reference_output (f, N_SAMPLES, 1, &written);
  ck_assert_int_eq (rnndenoise_process_int16 (st, s16, out16, N_SAMPLES),
      N_SAMPLES);
  for (i = 0; i < LATENCY; i++)
    ck_assert_int_eq (out16[i], 0);
  for (i = 0; i < written; i++)
    ck_assert_int_eq (out16[LATENCY + i],
        (gint16) CLAMP (lrintf (ref[i] * 32768.0f), -32768, 32767));
  rnndenoise_free (st);
  g_free (in);
  g_free (s16);
  g_free (out16);
  g_free (f);
  g_free (ref);
}
END_TEST

/* Export mid-frame, import in a new stream: it continues bit-identically. */
START_TEST (test_snapshot_round_trip)
{
  const guint cut = 12345;
  gfloat *in = test_signal (N_SAMPLES, 2, 13);
  gfloat *whole = g_new0 (gfloat, (gsize) N_SAMPLES * 2);
  gfloat *part = g_new0 (gfloat, (gsize) N_SAMPLES * 2);
  RnnDenoise *a = rnndenoise_new (NULL, 2, NULL);
  RnnDenoise *b = rnndenoise_new (NULL, 2, NULL);
  size_t size = 0, size2;
  guint8 *snap;

  rnndenoise_process_float (a, in, whole, cut);
  ck_assert_int_eq (rnndenoise_export_state (a, NULL, &size), RNNDENOISE_OK);
  ck_assert_uint_gt (size, 0);
  snap = g_malloc (size);
  size2 = size - 1;
  ck_assert_int_eq (rnndenoise_export_state (a, snap, &size2),
      RNNDENOISE_ERROR_BUFFER_TOO_SMALL);
  ck_assert_uint_eq (size2, size);
  ck_assert_int_eq (rnndenoise_export_state (a, snap, &size), RNNDENOISE_OK);
  rnndenoise_process_float (a, in + cut * 2, whole + cut * 2, N_SAMPLES - cut);

  ck_assert_int_eq (rnndenoise_import_state (b, snap, size), RNNDENOISE_OK);
  rnndenoise_process_float (b, in + cut * 2, part + cut * 2, N_SAMPLES - cut);
  ck_assert_int_eq (memcmp (whole + cut * 2, part + cut * 2,
                        (gsize) (N_SAMPLES - cut) * 2 * sizeof (gfloat)),
      0);

  /* The same bytes as DspProcessor's export after the same input. */
  {
    DspModel *model = dsp_model_new_from_file (model_path (), NULL);
    DspProcessor *proc = dsp_processor_new (model, 2, NULL);
    gfloat *tmp = g_new0 (gfloat, (gsize) cut * 2);
    GBytes *bytes;

    dsp_processor_set_vad_gate (proc, 0.0f, 20);
    dsp_processor_process (proc, in, tmp, cut, NULL, NULL, 0, NULL);
    bytes = dsp_processor_export (proc);
    ck_assert_uint_eq (g_bytes_get_size (bytes), size);
    ck_assert_int_eq (memcmp (g_bytes_get_data (bytes, NULL), snap, size), 0);
    g_bytes_unref (bytes);
    g_free (tmp);
    dsp_processor_free (proc);
    dsp_model_unref (model);
  }
  rnndenoise_free (a);
  rnndenoise_free (b);
  g_free (snap);
  g_free (in);
  g_free (whole);
  g_free (part);
}
END_TEST

/* A damaged snapshot and one for another channel count are refused with a
 * reason, and the stream is unchanged. */
START_TEST (test_snapshot_refused)
{
  gfloat *in = test_signal (4800, 1, 17);
  gfloat *out_a = g_new0 (gfloat, 4800);
  gfloat *out_b = g_new0 (gfloat, 4800);
  RnnDenoise *mono = rnndenoise_new (NULL, 1, NULL);
  RnnDenoise *ref = rnndenoise_new (NULL, 1, NULL);
  RnnDenoise *stereo = rnndenoise_new (NULL, 2, NULL);
  size_t size = 0;
  guint8 *snap;

  rnndenoise_export_state (stereo, NULL, &size);
  snap = g_malloc (size);
  rnndenoise_export_state (stereo, snap, &size);
  ck_assert_int_eq (rnndenoise_import_state (mono, snap, size),
      RNNDENOISE_ERROR_SNAPSHOT);
  ck_assert_str_ne (rnndenoise_get_error_message (mono), "");
  snap[size / 2] ^= 0x5a;
  ck_assert_int_eq (rnndenoise_import_state (stereo, snap, size),
      RNNDENOISE_ERROR_SNAPSHOT);
  ck_assert_int_eq (rnndenoise_import_state (stereo, snap, 3),
      RNNDENOISE_ERROR_SNAPSHOT);

  rnndenoise_process_float (mono, in, out_a, 4800);
  rnndenoise_process_float (ref, in, out_b, 4800);
  ck_assert_int_eq (memcmp (out_a, out_b, 4800 * sizeof (gfloat)), 0);
  rnndenoise_free (mono);
  rnndenoise_free (ref);
  rnndenoise_free (stereo);
  g_free (snap);
  g_free (in);
  g_free (out_a);
  g_free (out_b);
}
END_TEST

/* Reset gives the output of a new stream; drain gives the tail. */
START_TEST (test_reset_drain)
{
  gfloat *in = test_signal (9600, 1, 19);
  gfloat *a = g_new0 (gfloat, 9600);
  gfloat *b = g_new0 (gfloat, 9600);
  gfloat tail[LATENCY];
  RnnDenoise *st = rnndenoise_new (NULL, 1, NULL);

  rnndenoise_process_float (st, in, a, 9600);
  ck_assert_int_eq (rnndenoise_drain (st, tail), LATENCY);
  rnndenoise_reset (st);
  ck_assert_float_eq (rnndenoise_get_vad (st), 0.0f);
  rnndenoise_process_float (st, in, b, 9600);
  ck_assert_int_eq (memcmp (a, b, 9600 * sizeof (gfloat)), 0);
  rnndenoise_free (st);
  g_free (in);
  g_free (a);
  g_free (b);
}
END_TEST

/* The float settings, each with values it must refuse. */
typedef int (*FloatSetter) (RnnDenoise *st, float value);

static const struct
{
  FloatSetter set;
  float value;
} refused_settings[] = {
  { rnndenoise_set_vad_threshold, 1.5f },
  { rnndenoise_set_attenuation_limit, -1.0f },
  { rnndenoise_set_vad_hold, -1.0f },
  { rnndenoise_set_speech_protection, 2.5f },
  { rnndenoise_set_speech_protection, NAN },
  { rnndenoise_set_stationary_suppression, 4.5f },
  { rnndenoise_set_stationary_suppression, -1.0f },
  { rnndenoise_set_stationary_suppression, NAN },
  { rnndenoise_set_harmonic_lift, 3.5f },
  { rnndenoise_set_harmonic_lift, -1.0f },
  { rnndenoise_set_harmonic_lift, NAN },
  { rnndenoise_set_harmonic_lift, INFINITY },
  { rnndenoise_set_speech_hold, 1.5f },
  { rnndenoise_set_speech_hold, -0.5f },
  { rnndenoise_set_speech_hold, NAN },
};

START_TEST (test_errors)
{
  int err = 0;
  gchar msg[64] = "x";
  gfloat x[4] = { 0 };
  RnnDenoise *st;
  guint k;

  ck_assert_ptr_null (rnndenoise_new (NULL, 0, &err));
  ck_assert_int_eq (err, RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_ptr_null (rnndenoise_new (NULL, 65, &err));
  ck_assert_ptr_null (
      rnndenoise_model_new_from_file ("/nonexistent.rnnm", &err, msg, 64));
  ck_assert_int_eq (err, RNNDENOISE_ERROR_MODEL);
  ck_assert_str_ne (msg, "");
  ck_assert_str_eq (rnndenoise_strerror (RNNDENOISE_ERROR_MODEL),
      "the model could not be loaded");
  ck_assert_str_eq (rnndenoise_strerror (12345), "unknown error");
  st = rnndenoise_new (NULL, 1, NULL);
  ck_assert_int_eq (rnndenoise_process_float (st, x, x, -1),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_process_float (NULL, x, x, 4),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_process_float (st, NULL, NULL, 0), 0);
  for (k = 0; k < G_N_ELEMENTS (refused_settings); k++) {
    ck_assert_int_eq (refused_settings[k].set (st, refused_settings[k].value),
        RNNDENOISE_ERROR_INVALID_ARGUMENT);
    /* Every setter refuses a NULL handle, with a value it takes. */
    ck_assert_int_eq (refused_settings[k].set (NULL, 0.0f),
        RNNDENOISE_ERROR_INVALID_ARGUMENT);
  }
  ck_assert_int_eq (rnndenoise_set_harmonic_lift (st, 0.0f), RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_level_normalization (st, 2),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_level_normalization (st, -1),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_level_normalization (NULL, 1),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_level_normalization (st, 0), RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_level_normalization (st, 1), RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_hum_removal (st, 2),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_hum_removal (st, -1),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_hum_removal (NULL, 1),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_hum_removal (st, 0), RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_hum_removal (st, 1), RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_harmonic_lift (st, DSP_MAX_HARMONIC_LIFT),
      RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_speech_hold (st, 0.0f), RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_speech_hold (st, 1.0f), RNNDENOISE_OK);
  rnndenoise_free (st);
}
END_TEST

/* The public ranges and defaults are the processor's: a host that builds
 * its controls from rnndenoise.h offers what the library does. Each top is
 * taken, the next float above it refused. */
START_TEST (test_public_ranges)
{
  RnnDenoise *st = rnndenoise_new (NULL, 1, NULL);

  ck_assert (RNNDENOISE_MAX_SPEECH_PROTECTION == DSP_MAX_SPEECH_PROTECTION);
  ck_assert (
      RNNDENOISE_MAX_STATIONARY_SUPPRESSION == DSP_MAX_STATIONARY_SUPPRESSION);
  ck_assert (RNNDENOISE_MAX_HARMONIC_LIFT == DSP_MAX_HARMONIC_LIFT);
  ck_assert (RNNDENOISE_DEFAULT_STATIONARY_SUPPRESSION
      == DSP_DEFAULT_STATIONARY_SUPPRESSION);
  ck_assert (RNNDENOISE_DEFAULT_HARMONIC_LIFT == DSP_DEFAULT_HARMONIC_LIFT);
  ck_assert (RNNDENOISE_DEFAULT_SPEECH_HOLD == DSP_DEFAULT_SPEECH_HOLD);
  ck_assert_int_eq (rnndenoise_set_speech_protection (st,
                        RNNDENOISE_MAX_SPEECH_PROTECTION),
      RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_speech_protection (st,
                        nextafterf (RNNDENOISE_MAX_SPEECH_PROTECTION, 10.0f)),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_stationary_suppression (st,
                        RNNDENOISE_MAX_STATIONARY_SUPPRESSION),
      RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_stationary_suppression (st,
                        nextafterf (RNNDENOISE_MAX_STATIONARY_SUPPRESSION,
                            10.0f)),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  ck_assert_int_eq (rnndenoise_set_harmonic_lift (st,
                        RNNDENOISE_MAX_HARMONIC_LIFT),
      RNNDENOISE_OK);
  ck_assert_int_eq (rnndenoise_set_harmonic_lift (st,
                        nextafterf (RNNDENOISE_MAX_HARMONIC_LIFT, 10.0f)),
      RNNDENOISE_ERROR_INVALID_ARGUMENT);
  rnndenoise_free (st);
}
END_TEST

/* Settings reach the processor: the same bits as DspProcessor with the
 * same attenuation limit, speech protection, stationary suppression,
 * harmonic lift, speech hold, level normalisation (off), hum removal (off)
 * and gate (200 ms hold = 20 frames). */
START_TEST (test_settings)
{
  gfloat *in = test_signal (N_SAMPLES, 1, 23);
  gfloat *out = g_new0 (gfloat, N_SAMPLES);
  gfloat *ref = g_new0 (gfloat, N_SAMPLES);
  DspModel *model = dsp_model_new_from_file (model_path (), NULL);
  DspProcessor *proc = dsp_processor_new (model, 1, NULL);
  RnnDenoise *st = rnndenoise_new (NULL, 1, NULL);
  guint written;

  dsp_processor_set_attenuation_limit (proc, 12.0f);
  dsp_processor_set_speech_protection (proc, 0.5f);
  dsp_processor_set_stationary_suppression (proc, 3.0f);
  dsp_processor_set_harmonic_lift (proc, 2.0f);
  dsp_processor_set_speech_hold (proc, 0.5f);
  dsp_processor_set_level_normalization (proc, FALSE);
  dsp_processor_set_hum_removal (proc, FALSE);
  dsp_processor_set_vad_gate (proc, 0.6f, 20);
  written
      = dsp_processor_process (proc, in, ref, N_SAMPLES, NULL, NULL, 0, NULL);
  ck_assert_int_eq (rnndenoise_set_attenuation_limit (st, 12.0f), 0);
  ck_assert_int_eq (rnndenoise_set_speech_protection (st, 0.5f), 0);
  ck_assert_int_eq (rnndenoise_set_stationary_suppression (st, 3.0f), 0);
  ck_assert_int_eq (rnndenoise_set_harmonic_lift (st, 2.0f), 0);
  ck_assert_int_eq (rnndenoise_set_speech_hold (st, 0.5f), 0);
  ck_assert_int_eq (rnndenoise_set_level_normalization (st, 0), 0);
  ck_assert_int_eq (rnndenoise_set_hum_removal (st, 0), 0);
  ck_assert_int_eq (rnndenoise_set_vad_threshold (st, 0.6f), 0);
  ck_assert_int_eq (rnndenoise_set_vad_hold (st, 200.0f), 0);
  rnndenoise_process_float (st, in, out, N_SAMPLES);
  ck_assert_int_eq (memcmp (out + LATENCY, ref,
                        (gsize) written * sizeof (gfloat)),
      0);
  rnndenoise_free (st);
  dsp_processor_free (proc);
  dsp_model_unref (model);
  g_free (in);
  g_free (out);
  g_free (ref);
}
END_TEST

static Suite *
librnndenoise_suite (void)
{
  Suite *s = suite_create ("librnndenoise");
  TCase *tc;

  tc = tcase_create ("lifecycle");
  tcase_add_test (tc, test_lifecycle);
  tcase_add_test (tc, test_shared_model);
  tcase_add_test (tc, test_default_model_per_rate);
  suite_add_tcase (s, tc);

  tc = tcase_create ("process");
  tcase_add_loop_test (tc, test_bit_exact_float, 0, 2);
  tcase_add_test (tc, test_in_place_from_file);
  tcase_add_test (tc, test_int16);
  tcase_add_test (tc, test_settings);
  tcase_add_test (tc, test_public_ranges);
  tcase_add_test (tc, test_reset_drain);
  suite_add_tcase (s, tc);

  tc = tcase_create ("snapshot");
  tcase_add_test (tc, test_snapshot_round_trip);
  tcase_add_test (tc, test_snapshot_refused);
  suite_add_tcase (s, tc);

  tc = tcase_create ("errors");
  tcase_add_test (tc, test_errors);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (librnndenoise_suite)
