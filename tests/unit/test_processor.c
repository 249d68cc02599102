/* rnndenoise — Check suite for dsp/dsp_processor: persistence, buffer-size
 * invariance, bit-exact export/import continuation, isolation, bad input
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include <check.h>

#include "check_main.h"

#include "dsp/dsp_dense.h"
#include "dsp/dsp_features.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_processor.h"
#include "dsp/dsp_samples.h"
#include "dsp/dsp_stft.h"
#include "state/rnn_state_error.h"
#include "state/rnn_state_quant.h"
#include "model_helper.h"

#define RATE 48000
#define HOP 480
#define SIGNAL_SAMPLES (RATE / 2)

static DspModel *
random_model (DspWeightType type)
{
  GBytes *bytes = model_helper_random_model (type, 1234);
  DspModel *model = dsp_model_new_from_bytes (bytes, NULL);

  ck_assert_ptr_nonnull (model);
  g_bytes_unref (bytes);
  return model;
}

static DspModel *
random_model_layout_type (guint32 layout, DspWeightType type)
{
  ModelHelperSpec spec;
  DspModel *model;
  GBytes *bytes;

  model_helper_spec_init_default (&spec, type, 77);
  ck_assert (dsp_frame_config_init_layout (&spec.config, RATE, layout, NULL));
  spec.layers[0].input_size
      = dsp_feature_layout_n_features (layout, spec.config.n_bands);
  spec.layers[3].output_size = spec.config.n_bands;
  bytes = model_helper_build (&spec);
  model = dsp_model_new_from_bytes (bytes, NULL);
  ck_assert_ptr_nonnull (model);
  g_bytes_unref (bytes);
  return model;
}

static DspModel *
random_model_layout (guint32 layout)
{
  return random_model_layout_type (layout, DSP_WEIGHT_F32);
}

/* The bytes of a random model of @layout that reads @lookahead frames
 * ahead (layer 0 reads n_features x (1 + lookahead) values); with @ignore,
 * it gives them zero weights and computes what the model without
 * lookahead does. */
static guint8 *
lookahead_model_data (guint lookahead, guint32 layout, DspWeightType type,
    gboolean ignore, gsize *size)
{
  ModelHelperSpec spec;
  GBytes *bytes;

  model_helper_spec_init_lookahead (&spec, type, 88, lookahead);
  spec.ignore_lookahead = ignore;
  ck_assert (dsp_frame_config_init_layout (&spec.config, RATE, layout, NULL));
  spec.layers[0].input_size = (1 + lookahead)
      * dsp_feature_layout_n_features (layout, spec.config.n_bands);
  spec.layers[3].output_size = spec.config.n_bands;
  bytes = model_helper_build (&spec);
  return g_bytes_unref_to_data (bytes, size);
}

static DspModel *
model_from_data (guint8 *data, gsize size)
{
  GBytes *bytes = g_bytes_new_take (data, size);
  GError *error = NULL;
  DspModel *model = dsp_model_new_from_bytes (bytes, &error);

  ck_assert_msg (model != NULL, "%s", error ? error->message : "");
  g_bytes_unref (bytes);
  return model;
}

static DspModel *
lookahead_model (guint lookahead, guint32 layout, DspWeightType type,
    gboolean ignore)
{
  gsize size;
  guint8 *data = lookahead_model_data (lookahead, layout, type, ignore, &size);

  return model_from_data (data, size);
}

/* Speech-like test signal: a few harmonics with a wobbling pitch plus noise,
 * different per channel. */
static gfloat *
make_signal (guint n_samples, guint channels, guint32 seed)
{
  gfloat *x = g_new (gfloat, (gsize) n_samples * channels);
  GRand *rand = g_rand_new_with_seed (seed);
  guint i, c;

  for (i = 0; i < n_samples; i++) {
    for (c = 0; c < channels; c++) {
      gdouble t = (gdouble) i / RATE;
      gdouble f0 = 120.0 + 30.0 * c + 20.0 * sin (2 * G_PI * 3.0 * t);
      gdouble v = 0.2 * sin (2 * G_PI * f0 * t)
          + 0.1 * sin (2 * G_PI * 3 * f0 * t)
          + 0.05 * g_rand_double_range (rand, -1.0, 1.0);
      x[(gsize) i * channels + c] = (gfloat) v;
    }
  }
  g_rand_free (rand);
  return x;
}

/* Runs a processor over @x in chunks of the given sizes (cycled); the
 * output samples are written one after the other to @y. Returns how many
 * samples per channel were written. */
static guint
run_chunked (DspProcessor *p, const gfloat *x, gfloat *y, guint n_samples,
    const guint *chunks, guint n_chunks)
{
  guint channels = dsp_processor_get_channels (p);
  guint done = 0, produced = 0, k = 0;

  while (done < n_samples) {
    guint n = MIN (chunks[k % n_chunks], n_samples - done);

    produced += dsp_processor_process (p, x + (gsize) done * channels,
        y + (gsize) produced * channels, n, NULL, NULL, 0, NULL);
    done += n;
    k++;
  }
  return produced;
}

/* run_chunked() on a fresh processor of @model, freed after. */
static guint
run_fresh_chunked (DspModel *model, guint channels, const gfloat *x, gfloat *y,
    guint n_samples, const guint *chunks)
{
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  guint produced = run_chunked (p, x, y, n_samples, chunks, 1);

  dsp_processor_free (p);
  return produced;
}

static void
assert_bits_equal (const gfloat *a, const gfloat *b, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    if (memcmp (&a[i], &b[i], sizeof (gfloat)) != 0)
      ck_abort_msg ("sample %" G_GSIZE_FORMAT ": %.9g != %.9g", i, a[i], b[i]);
}

START_TEST (test_new_and_latency)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspProcessor *p;
  GError *error = NULL;

  p = dsp_processor_new (model, 2, &error);
  ck_assert_ptr_nonnull (p);
  ck_assert_uint_eq (dsp_processor_get_hop (p), HOP);
  ck_assert_uint_eq (dsp_processor_get_latency (p), 2 * HOP);
  ck_assert_uint_eq (dsp_processor_get_model_latency (model),
      dsp_processor_get_latency (p));
  ck_assert_uint_eq (dsp_processor_get_state_descriptor (p)->batch, 2);
  ck_assert_uint_eq (dsp_processor_get_state_descriptor (p)->cell,
      RNN_STATE_CELL_GRU);
  ck_assert_ptr_eq (dsp_processor_get_state_descriptor (p),
      rnn_state_slot_get_descriptor (dsp_processor_get_slot (p)));
  dsp_processor_free (p);

  ck_assert_ptr_null (dsp_processor_new (model, 0, &error));
  ck_assert_ptr_nonnull (strstr (error->message, "0 channels"));
  g_clear_error (&error);
  ck_assert_ptr_null (
      dsp_processor_new (model, RNN_STATE_MAX_BATCH + 1, &error));
  g_clear_error (&error);
  dsp_model_unref (model);
}
END_TEST

/* A processor that replaces another (new caps) takes over the import the
 * old one accepted and had not applied; the counters, the pending flag and
 * the side-output descriptor are read through the processor. */
START_TEST (test_take_pending_import)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspProcessor *src = dsp_processor_new (model, 1, NULL);
  DspProcessor *old = dsp_processor_new (model, 1, NULL);
  DspProcessor *stereo = dsp_processor_new (model, 2, NULL);
  DspProcessor *next = dsp_processor_new (model, 1, NULL);
  gfloat *x = make_signal (2 * HOP, 1, 3), y[2 * HOP];
  RnnStateDescriptor side;
  RnnStateCounters c;
  DspProcessorReport report;
  GError *error = NULL;
  GBytes *bytes, *got;

  dsp_processor_process (src, x, y, 2 * HOP, NULL, NULL, 0, &report);
  bytes = dsp_processor_export (src);
  ck_assert (dsp_processor_import (old, g_bytes_get_data (bytes, NULL),
      g_bytes_get_size (bytes), NULL));
  ck_assert (dsp_processor_has_pending_import (old));
  ck_assert (!dsp_processor_take_pending_import (stereo, old, &error));
  g_clear_error (&error);
  ck_assert (dsp_processor_has_pending_import (old));
  ck_assert (dsp_processor_take_pending_import (next, old, NULL));
  ck_assert (!dsp_processor_has_pending_import (old));
  ck_assert (dsp_processor_has_pending_import (next));

  dsp_processor_process (next, x, y, 2 * HOP, NULL, NULL, 0, &report);
  ck_assert (!dsp_processor_has_pending_import (next));
  dsp_processor_get_counters (next, &c);
  ck_assert_uint_eq (c.imports, 1);
  got = dsp_processor_export (next);
  ck_assert_uint_eq (g_bytes_get_size (got), g_bytes_get_size (bytes));

  dsp_processor_describe_side_output (next, RNN_STATE_ELEMENT_S8, &side);
  ck_assert_uint_eq (side.element_type, RNN_STATE_ELEMENT_S8);
  ck_assert_uint_eq (side.batch, 1);

  g_bytes_unref (got);
  g_bytes_unref (bytes);
  g_free (x);
  dsp_processor_free (src);
  dsp_processor_free (old);
  dsp_processor_free (stereo);
  dsp_processor_free (next);
  dsp_model_unref (model);
}
END_TEST

/* The state after buffer 2 depends on buffer 1 (persistence), and a reset in
 * between gives what a fresh stream gives (GRU cell). */
START_TEST (test_two_invocations_and_reset)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  DspProcessor *fresh = dsp_processor_new (model, 1, NULL);
  const RnnStateDescriptor *desc
      = rnn_state_slot_get_descriptor (dsp_processor_get_slot (p));
  gsize n = rnn_state_descriptor_n_values (desc);
  gfloat *x = make_signal (4 * HOP, 1, 7), y[4 * HOP];
  gfloat *after2 = g_new (gfloat, n), *after2_reset = g_new (gfloat, n);
  gfloat *fresh_state = g_new (gfloat, n), *peek = g_new (gfloat, n);
  DspProcessorReport report;

  dsp_processor_process (p, x, y, 2 * HOP, NULL, NULL, 0, &report);
  ck_assert_uint_eq (report.frames, 2);
  dsp_processor_process (p, x + 2 * HOP, y, 2 * HOP, desc, after2,
      n * sizeof (gfloat), &report);
  ck_assert_uint_eq (report.frames, 2);
  rnn_state_slot_peek (dsp_processor_get_slot (p), peek, NULL, NULL);
  ck_assert (memcmp (peek, after2, n * sizeof (gfloat)) == 0);

  dsp_processor_reset (p, TRUE);
  dsp_processor_process (p, x + 2 * HOP, y, 2 * HOP, desc, after2_reset,
      n * sizeof (gfloat), NULL);
  ck_assert (memcmp (after2, after2_reset, n * sizeof (gfloat)) != 0);

  dsp_processor_process (fresh, x + 2 * HOP, y, 2 * HOP, desc, fresh_state,
      n * sizeof (gfloat), NULL);
  ck_assert (memcmp (fresh_state, after2_reset, n * sizeof (gfloat)) == 0);

  g_free (x);
  g_free (after2);
  g_free (after2_reset);
  g_free (fresh_state);
  g_free (peek);
  dsp_processor_free (p);
  dsp_processor_free (fresh);
  dsp_model_unref (model);
}
END_TEST

/* Table of chunkings: every one gives the same samples as one call. */
static const struct
{
  guint chunks[4];
  guint n_chunks;
} chunkings[] = {
  { { 1 }, 1 },
  { { 479 }, 1 },
  { { 480 }, 1 },
  { { 481 }, 1 },
  { { 4096 }, 1 },
  { { 7, 960, 0, 1200 }, 4 },
  { { 333, 1, 2000, 480 }, 4 },
};

START_TEST (test_buffer_sizes_do_not_matter)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  guint channels = 2, n = SIGNAL_SAMPLES / 4;
  gfloat *x = make_signal (n, channels, 11);
  gfloat *whole = g_new (gfloat, (gsize) n * channels);
  gfloat *chunked = g_new (gfloat, (gsize) n * channels);
  DspProcessor *a = dsp_processor_new (model, channels, NULL);
  DspProcessor *b = dsp_processor_new (model, channels, NULL);
  guint one[1] = { n };

  ck_assert_uint_eq (run_chunked (a, x, whole, n, one, 1), n - 2 * HOP);
  ck_assert_uint_eq (run_chunked (b, x, chunked, n, chunkings[_i].chunks,
                         chunkings[_i].n_chunks),
      n - 2 * HOP);
  assert_bits_equal (whole, chunked, (gsize) (n - 2 * HOP) * channels);

  dsp_processor_free (a);
  dsp_processor_free (b);
  g_free (x);
  g_free (whole);
  g_free (chunked);
  dsp_model_unref (model);
}
END_TEST

/* The weight types the stream tests run on. */
static const DspWeightType continuation_types[]
    = { DSP_WEIGHT_F32, DSP_WEIGHT_S8, DSP_WEIGHT_S8X8 };

/* A stream gives the same bits on a machine with VNNI, on one with AVX2
 * alone and on one with neither (the portable kernels), so a snapshot moved
 * between them continues bit-exactly: float, int8 and int8x8 models, then
 * feature layout 3 models (the pitch search has AVX2 code of its own),
 * float and int8x8 as the shipped 48 kHz one is. (The float one matters:
 * an int8x8 network's quantised inputs would hide a last-bit difference in
 * its features.) Each family is run as far as this CPU has it. */
START_TEST (test_same_bits_on_every_kernel)
{
  DspModel *model = _i >= 3
      ? random_model_layout_type (DSP_FEATURE_LAYOUT_PITCH_V3,
          _i == 3 ? DSP_WEIGHT_F32 : DSP_WEIGHT_S8X8)
      : random_model (continuation_types[_i]);
  guint channels = 2, n = SIGNAL_SAMPLES;
  gfloat *x = make_signal (n, channels, 5);
  gfloat *want = g_new (gfloat, (gsize) n * channels);
  gfloat *got = g_new (gfloat, (gsize) n * channels);
  guint chunk[1] = { 960 }, produced;
  gint limit;

  dsp_dense_set_kernel_limit (DSP_KERNELS_PORTABLE);
  produced = run_fresh_chunked (model, channels, x, want, n, chunk);
  for (limit = DSP_KERNELS_AVX2; limit <= DSP_KERNELS_VNNI; limit++) {
    dsp_dense_set_kernel_limit (limit);
    ck_assert_uint_eq (run_fresh_chunked (model, channels, x, got, n, chunk),
        produced);
    assert_bits_equal (want, got, (gsize) produced * channels);
  }
  dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);

  g_free (x);
  g_free (want);
  g_free (got);
  dsp_model_unref (model);
}
END_TEST

/* Split points for migration, in samples: frame boundaries and mid-frame. */
static const guint split_points[] = { 1, 479, 480, 481, 2400, 5003, 9600 };

/* Runs a stereo stream whole, and split at @split: exported there,
 * imported into a fresh processor that ran other audio, continued and
 * drained. The two give the same bits, as many samples as the input. */
static void
check_continuation (DspModel *model, guint split)
{
  guint channels = 2, n = SIGNAL_SAMPLES / 2;
  guint latency = dsp_processor_get_model_latency (model);
  gfloat *x = make_signal (n, channels, 3);
  gfloat *whole = g_new (gfloat, (gsize) n * channels);
  gfloat *migrated = g_new (gfloat, (gsize) n * channels);
  DspProcessor *ref = dsp_processor_new (model, channels, NULL);
  DspProcessor *first = dsp_processor_new (model, channels, NULL);
  DspProcessor *second = dsp_processor_new (model, channels, NULL);
  gfloat *junk = g_new (gfloat, (gsize) n * channels);
  guint chunk[1] = { 1000 }, produced_whole, produced, tail;
  GBytes *snapshot;
  GError *error = NULL;

  /* The gate's hold counters are stream state too. */
  dsp_processor_set_vad_gate (ref, 0.5f, 5);
  dsp_processor_set_vad_gate (first, 0.5f, 5);
  dsp_processor_set_vad_gate (second, 0.5f, 5);
  produced_whole = run_chunked (ref, x, whole, n, chunk, 1);
  tail = dsp_processor_drain (ref, whole + (gsize) produced_whole * channels);
  ck_assert_uint_eq (produced_whole + tail, n);

  produced = run_chunked (first, x, migrated, split, chunk, 1);
  ck_assert_uint_eq (produced, split > latency ? split - latency : 0);
  snapshot = dsp_processor_export (first);
  /* Some unrelated audio first: the import must replace all of it. */
  run_chunked (second, x + 100 * channels, junk, 2000, chunk, 1);
  ck_assert (dsp_processor_import (second, g_bytes_get_data (snapshot, NULL),
      g_bytes_get_size (snapshot), &error));
  produced += run_chunked (second, x + (gsize) split * channels,
      migrated + (gsize) produced * channels, n - split, chunk, 1);
  ck_assert_uint_eq (produced, produced_whole);
  produced
      += dsp_processor_drain (second, migrated + (gsize) produced * channels);
  ck_assert_uint_eq (produced, n);
  assert_bits_equal (whole, migrated, (gsize) n * channels);
  g_free (junk);

  g_bytes_unref (snapshot);
  dsp_processor_free (ref);
  dsp_processor_free (first);
  dsp_processor_free (second);
  g_free (x);
  g_free (whole);
  g_free (migrated);
}

/* Float, int8 and int8x8 models, and a feature layout 3 model (whose
 * snapshots also carry the pitch search's input history), at each split
 * point. */
START_TEST (test_export_import_continuation)
{
  DspModel *model = _i % 4 == 3
      ? random_model_layout (DSP_FEATURE_LAYOUT_PITCH_V3)
      : random_model (continuation_types[_i % 4]);

  check_continuation (model, split_points[_i / 4]);
  dsp_model_unref (model);
}
END_TEST

START_TEST (test_import_refused_keeps_state)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspModel *other_model = random_model (DSP_WEIGHT_S8);
  DspProcessor *stereo = dsp_processor_new (model, 2, NULL);
  DspProcessor *mono = dsp_processor_new (model, 1, NULL);
  DspProcessor *other = dsp_processor_new (other_model, 1, NULL);
  gfloat *x = make_signal (2 * HOP, 2, 5), y[4 * HOP];
  GBytes *before, *after, *snap;
  GError *error = NULL;

  dsp_processor_process (mono, x, y, HOP, NULL, NULL, 0, NULL);
  before = dsp_processor_export (mono);

  snap = dsp_processor_export (stereo);
  ck_assert (!dsp_processor_import (mono, g_bytes_get_data (snap, NULL),
      g_bytes_get_size (snap), &error));
  ck_assert (
      g_error_matches (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH));
  ck_assert_str_eq (error->message, "batch 2, stream expects 1");
  g_clear_error (&error);
  g_bytes_unref (snap);

  snap = dsp_processor_export (other);
  ck_assert (!dsp_processor_import (mono, g_bytes_get_data (snap, NULL),
      g_bytes_get_size (snap), &error));
  ck_assert_ptr_nonnull (strstr (error->message, "model id"));
  g_clear_error (&error);
  g_bytes_unref (snap);

  after = dsp_processor_export (mono);
  ck_assert (g_bytes_equal (before, after));
  g_bytes_unref (before);
  g_bytes_unref (after);
  g_free (x);
  dsp_processor_free (stereo);
  dsp_processor_free (mono);
  dsp_processor_free (other);
  dsp_model_unref (model);
  dsp_model_unref (other_model);
}
END_TEST

/* Side output in S8 equals the F32 final state within one step. */
START_TEST (test_side_output_formats)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspProcessor *p = dsp_processor_new (model, 2, NULL);
  RnnStateDescriptor s8
      = *rnn_state_slot_get_descriptor (dsp_processor_get_slot (p));
  gsize n = rnn_state_descriptor_n_values (&s8);
  gfloat *x = make_signal (3 * HOP, 2, 9), *y = g_new (gfloat, 6 * HOP);
  gfloat *f32 = g_new (gfloat, n), *back = g_new (gfloat, n);
  gint8 *q = g_new (gint8, n);
  gsize i;

  rnn_state_descriptor_set_element_type (&s8, RNN_STATE_ELEMENT_S8, 1.0f);
  dsp_processor_process (p, x, y, 3 * HOP, &s8, q, n, NULL);
  rnn_state_slot_peek (dsp_processor_get_slot (p), f32, NULL, NULL);
  rnn_state_dequantize (&s8, q, back);
  for (i = 0; i < n; i++)
    ck_assert_float_le (fabsf (back[i] - f32[i]), 1.0f / 127.0f);

  /* A call that completes no frame leaves the side output alone. */
  memset (q, 0x55, n);
  dsp_processor_process (p, x, y, 10, &s8, q, n, NULL);
  for (i = 0; i < n; i++)
    ck_assert_int_eq (q[i], 0x55);

  g_free (x);
  g_free (y);
  g_free (f32);
  g_free (back);
  g_free (q);
  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST

/* With the default layout and with layout 3 (whose pitch search keeps the
 * input's history). */
START_TEST (test_nonfinite_input)
{
  DspModel *model = _i ? random_model_layout (DSP_FEATURE_LAYOUT_PITCH_V3)
                       : random_model (DSP_WEIGHT_F32);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  gfloat *x = make_signal (10 * HOP, 1, 13), *y = g_new (gfloat, 10 * HOP);
  gfloat hidden[1024];
  DspProcessorReport report;
  guint i;

  x[5] = NAN;
  x[600] = INFINITY;
  x[601] = -INFINITY;
  x[700] = 1e30f;
  ck_assert_uint_eq (dsp_processor_process (p, x, y, 10 * HOP, NULL, NULL, 0,
                         &report),
      8 * HOP);
  ck_assert_uint_eq (report.nonfinite_samples, 3);
  ck_assert_uint_eq (report.frames, 10);
  ck_assert (report.vad_max >= 0.0f && report.vad_max <= 1.0f);
  for (i = 0; i < 8 * HOP; i++)
    ck_assert_msg (isfinite (y[i]), "sample %u not finite", i);
  rnn_state_slot_peek (dsp_processor_get_slot (p), hidden, NULL, NULL);
  for (i = 0; i < rnn_state_descriptor_n_values (
                  rnn_state_slot_get_descriptor (dsp_processor_get_slot (p)));
       i++)
    ck_assert (isfinite (hidden[i]));
  g_free (x);
  g_free (y);
  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST

/* A history that holds NaN, infinities or huge values (what a damaged
 * import could leave in the slot) is repaired before use: the output stays
 * finite, and the history written back is finite and within range. With
 * layout 3, whose history also holds the pitch search's input, and with a
 * lookahead model, whose history holds its delayed frames. */
START_TEST (test_damaged_history_repaired)
{
  DspModel *model = _i == 2
      ? lookahead_model (2, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, DSP_WEIGHT_F32,
          FALSE)
      : _i ? random_model_layout (DSP_FEATURE_LAYOUT_PITCH_V3)
           : random_model (DSP_WEIGHT_F32);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  RnnStateSlot *slot = dsp_processor_get_slot (p);
  const RnnStateDescriptor *desc = rnn_state_slot_get_descriptor (slot);
  gsize n_history = desc->history_size, i;
  gfloat *x = make_signal (10 * HOP, 1, 21), *y = g_new (gfloat, 10 * HOP);
  gfloat *hidden = g_new0 (gfloat, rnn_state_descriptor_n_values (desc) + 1);
  gfloat *history = g_new0 (gfloat, n_history);
  guint produced;

  dsp_processor_process (p, x, y, 5 * HOP, NULL, NULL, 0, NULL);
  ck_assert (rnn_state_slot_peek (slot, hidden, history, NULL));
  for (i = 0; i + 2 < n_history; i += 97)
    history[i] = (i / 97) % 3 == 0 ? NAN
        : (i / 97) % 3 == 1        ? -INFINITY
                                   : 1e30f;
  /* A lookahead model's count of frames seen, before the position and the
   * pre-roll, out of its range 0..2. */
  if (_i == 2)
    history[n_history - 3] = 7.0f;
  rnn_state_slot_writeback (slot, hidden, history, NULL, NULL, 0);
  produced
      = dsp_processor_process (p, x + 5 * HOP, y, 5 * HOP, NULL, NULL, 0, NULL);
  for (i = 0; i < produced; i++)
    ck_assert_msg (isfinite (y[i]), "sample %" G_GSIZE_FORMAT, i);
  ck_assert (rnn_state_slot_peek (slot, hidden, history, NULL));
  for (i = 0; i + 2 < n_history; i++)
    ck_assert_msg (isfinite (history[i]) && fabsf (history[i]) <= 65536.0f,
        "history %" G_GSIZE_FORMAT ": %g", i, history[i]);
  if (_i == 2)
    ck_assert_float_eq (history[n_history - 3], 2.0f);

  g_free (x);
  g_free (y);
  g_free (hidden);
  g_free (history);
  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST

/* Denormal input after loud input, and silence: finite output, and the
 * caller's floating-point mode is restored. */
START_TEST (test_denormals_and_fp_mode)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  gfloat x[4 * HOP], y[4 * HOP];
  guint i;
#if defined(__SSE2__)
  guint csr_before = _mm_getcsr ();
#endif

  for (i = 0; i < 4 * HOP; i++)
    x[i] = i < HOP ? 0.5f : 1e-41f;
  ck_assert_uint_eq (dsp_processor_process (p, x, y, 4 * HOP, NULL, NULL, 0,
                         NULL),
      2 * HOP);
  for (i = 0; i < 2 * HOP; i++)
    ck_assert (isfinite (y[i]));
#if defined(__SSE2__)
  ck_assert_uint_eq (_mm_getcsr (), csr_before);
#endif
  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST

/* Streams on one shared model, one thread each, give exactly what they give
 * when run one at a time. */
typedef struct
{
  DspModel *model;
  const gfloat *x;
  gfloat *y;
  guint n;
  guint chunk;
} StreamJob;

static gpointer
run_stream (gpointer data)
{
  StreamJob *job = data;
  DspProcessor *p = dsp_processor_new (job->model, 2, NULL);
  guint chunk[1] = { job->chunk };

  run_chunked (p, job->x, job->y, job->n, chunk, 1);
  dsp_processor_free (p);
  return NULL;
}

START_TEST (test_threads_match_sequential)
{
  DspModel *model = random_model (DSP_WEIGHT_S8);
  guint n = SIGNAL_SAMPLES / 4, t;
  StreamJob jobs[4];
  GThread *threads[4];
  gfloat *seq[4];

  for (t = 0; t < 4; t++) {
    jobs[t].model = model;
    jobs[t].x = make_signal (n, 2, 100 + t);
    jobs[t].y = g_new (gfloat, (gsize) n * 2);
    jobs[t].n = n;
    jobs[t].chunk = 256 + 100 * t;
    run_stream (&jobs[t]);
    seq[t] = g_memdup2 (jobs[t].y, (gsize) n * 2 * sizeof (gfloat));
  }
  for (t = 0; t < 4; t++)
    threads[t] = g_thread_new ("stream", run_stream, &jobs[t]);
  for (t = 0; t < 4; t++) {
    g_thread_join (threads[t]);
    assert_bits_equal (seq[t], jobs[t].y, (gsize) (n - 2 * HOP) * 2);
    g_free ((gpointer) jobs[t].x);
    g_free (jobs[t].y);
    g_free (seq[t]);
  }
  dsp_model_unref (model);
}
END_TEST

/* Input sample i comes out as output sample i: the pre-roll is dropped and
 * the drain gives the tail as if silence followed, without changing the
 * stream's state; in both output modes (the second half of the loop is
 * frame-output), for streams shorter and longer than the latency. */
static const guint drain_lengths[] = { 1, 479, 480, 481, 959, 960, 961, 4096 };

START_TEST (test_drain_gives_exact_count)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  guint channels = 2, n = drain_lengths[_i % G_N_ELEMENTS (drain_lengths)];
  gboolean frame_output = _i >= (gint) G_N_ELEMENTS (drain_lengths);
  gfloat *x = make_signal (n + 2 * HOP, channels, 21);
  gfloat *y = g_new0 (gfloat, (gsize) (n + 2 * HOP) * channels);
  gfloat *ref_y = g_new0 (gfloat, (gsize) (n + 2 * HOP) * channels);
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  DspProcessor *ref = dsp_processor_new (model, channels, NULL);
  guint chunk[1] = { 333 }, produced, ref_n;
  GBytes *before, *after;

  dsp_processor_set_frame_output (p, frame_output);
  dsp_processor_set_frame_output (ref, frame_output);
  produced = run_chunked (p, x, y, n, chunk, 1);
  before = dsp_processor_export (p);
  produced += dsp_processor_drain (p, y + (gsize) produced * channels);
  ck_assert_uint_eq (produced, n);
  after = dsp_processor_export (p);
  ck_assert (g_bytes_equal (before, after));

  /* The same input followed by real silence, in one stream (frame-output
   * gives whole frames: the first n of them). */
  memset (x + (gsize) n * channels, 0, 2 * HOP * channels * sizeof (gfloat));
  ref_n = run_chunked (ref, x, ref_y, n + 2 * HOP, chunk, 1);
  if (frame_output)
    ck_assert_uint_ge (ref_n, n);
  else
    ck_assert_uint_eq (ref_n, n);
  assert_bits_equal (ref_y, y, (gsize) n * channels);

  g_bytes_unref (before);
  g_bytes_unref (after);
  g_free (x);
  g_free (y);
  g_free (ref_y);
  dsp_processor_free (p);
  dsp_processor_free (ref);
  dsp_model_unref (model);
}
END_TEST

/* Frame-output mode gives the same samples as the default mode, one hop
 * sooner: with calls of whole frames each call gives as many samples as
 * it takes (after the STFT delay's pre-roll), with any call sizes whole
 * hops; the drain completes the stream to the input's sample count. */
static const guint frame_chunkings[][3] = {
  { 480, 480, 480 },
  { 960, 480, 1440 },
  { 1, 479, 480 },
  { 333, 1000, 7 },
  { 4800, 4800, 4800 },
};

START_TEST (test_frame_output_same_samples)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  guint channels = 2, n = 24000, aligned = _i < 2 || _i == 4;
  gfloat *x = make_signal (n, channels, 31);
  gfloat *ref_y = g_new0 (gfloat, (gsize) n * channels);
  gfloat *y = g_new0 (gfloat, (gsize) (n + 2 * HOP) * channels);
  DspProcessor *ref = dsp_processor_new (model, channels, NULL);
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  guint ref_n, done = 0, produced = 0, k = 0;

  dsp_processor_set_frame_output (p, TRUE);
  ck_assert (dsp_processor_get_frame_output (p));
  ck_assert_uint_eq (dsp_processor_get_aligned_latency (model), HOP);
  ref_n = run_chunked (ref, x, ref_y, n, frame_chunkings[_i], 3);
  ref_n += dsp_processor_drain (ref, ref_y + (gsize) ref_n * channels);
  ck_assert_uint_eq (ref_n, n);

  while (done < n) {
    guint chunk = frame_chunkings[_i][k++ % 3];
    guint take = MIN (chunk, n - done);
    DspProcessorReport report;
    guint got = dsp_processor_process (p, x + (gsize) done * channels,
        y + (gsize) produced * channels, take, NULL, NULL, 0, &report);

    done += take;
    produced += got;
    /* Taken minus given is what the processor says it holds. */
    ck_assert_uint_eq (done - produced, report.held);
    ck_assert_uint_eq (got % HOP, 0);
    if (aligned && done - take >= HOP)
      ck_assert_uint_eq (got, take);
    if (aligned)
      ck_assert_uint_eq (report.held, MIN (done, HOP));
  }
  produced += dsp_processor_drain (p, y + (gsize) produced * channels);
  ck_assert_uint_eq (produced, n);
  assert_bits_equal (ref_y, y, (gsize) n * channels);

  g_free (x);
  g_free (y);
  g_free (ref_y);
  dsp_processor_free (p);
  dsp_processor_free (ref);
  dsp_model_unref (model);
}
END_TEST

/* A frame-output stream moves mid-frame to another frame-output processor
 * bit-exactly: the history is the same format in both modes. */
START_TEST (test_frame_output_migration)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  guint channels = 1, n = 9600, split = split_points[_i];
  gfloat *x = make_signal (n, channels, 51);
  gfloat *ref_y = g_new0 (gfloat, (gsize) (n + 2 * HOP) * channels);
  gfloat *y = g_new0 (gfloat, (gsize) (n + 2 * HOP) * channels);
  DspProcessor *ref = dsp_processor_new (model, channels, NULL);
  DspProcessor *a = dsp_processor_new (model, channels, NULL);
  DspProcessor *b = dsp_processor_new (model, channels, NULL);
  guint chunk[1] = { 480 }, ref_n, produced;
  GBytes *snap;

  dsp_processor_set_frame_output (ref, TRUE);
  dsp_processor_set_frame_output (a, TRUE);
  dsp_processor_set_frame_output (b, TRUE);
  ref_n = run_chunked (ref, x, ref_y, n, chunk, 1);
  produced = run_chunked (a, x, y, split, chunk, 1);
  snap = dsp_processor_export (a);
  ck_assert (dsp_processor_import (b, g_bytes_get_data (snap, NULL),
      g_bytes_get_size (snap), NULL));
  produced += run_chunked (b, x + split, y + produced, n - split, chunk, 1);
  ck_assert_uint_eq (produced, ref_n);
  assert_bits_equal (ref_y, y, ref_n);

  g_bytes_unref (snap);
  g_free (x);
  g_free (y);
  g_free (ref_y);
  dsp_processor_free (ref);
  dsp_processor_free (a);
  dsp_processor_free (b);
  dsp_model_unref (model);
}
END_TEST

/* Speech protection only raises gains: more output energy the larger it
 * is, none of it for 0 (the network's gains as they are); out-of-range
 * values are clamped (NaN is 0). */
START_TEST (test_speech_protection)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  const gfloat amounts[] = { 0.0f, 1.0f, 2.0f, NAN, 5.0f };
  guint n = 9600, k;
  gfloat *x = make_signal (n, 1, 61);
  gfloat *y[G_N_ELEMENTS (amounts)];
  gdouble energy[G_N_ELEMENTS (amounts)];

  for (k = 0; k < G_N_ELEMENTS (amounts); k++) {
    DspProcessor *p = dsp_processor_new (model, 1, NULL);
    guint chunk[1] = { 480 };

    dsp_processor_set_speech_protection (p, amounts[k]);
    y[k] = g_new0 (gfloat, n + 2 * HOP);
    ck_assert_uint_eq (run_chunked (p, x, y[k], n, chunk, 1), n - 2 * HOP);
    energy[k] = dsp_samples_energy (y[k], n - 2 * HOP);
    dsp_processor_free (p);
  }
  ck_assert (energy[1] > energy[0] * 1.01);
  ck_assert (energy[2] > energy[1] * 1.01);
  assert_bits_equal (y[3], y[0], n - 2 * HOP);
  assert_bits_equal (y[4], y[2], n - 2 * HOP);
  for (k = 0; k < G_N_ELEMENTS (amounts); k++)
    g_free (y[k]);
  g_free (x);
  dsp_model_unref (model);
}
END_TEST

/* Output energy of @x (@n samples, mono) through @model with the given
 * speech protection and stationary suppression; the output goes to @y
 * (n + 2 * HOP floats) if given. */
static gdouble
output_energy (DspModel *model, const gfloat *x, guint n, gfloat protection,
    gfloat suppression, gfloat *y)
{
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  gfloat *out = y != NULL ? y : g_new0 (gfloat, n + 2 * HOP);
  guint chunk[1] = { 480 };
  gdouble energy;

  dsp_processor_set_speech_protection (p, protection);
  dsp_processor_set_stationary_suppression (p, suppression);
  ck_assert_uint_eq (run_chunked (p, x, out, n, chunk, 1), n - 2 * HOP);
  energy = dsp_samples_energy (out, n - 2 * HOP);
  dsp_processor_free (p);
  if (y == NULL)
    g_free (out);
  return energy;
}

/* @x through a processor of @model left at its first speech protection;
 * @y holds @n + 2 HOP floats. */
static void
run_with_first_protection (DspModel *model, const gfloat *x, gfloat *y, guint n)
{
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  guint chunk[1] = { 480 };

  ck_assert_uint_eq (run_chunked (p, x, y, n, chunk, 1), n - 2 * HOP);
  dsp_processor_free (p);
}

/* A processor starts with the speech protection its model file names: the
 * same network named 2 gives what a processor of the file naming the
 * default gives once set to 2, and not what it gives at the default. */
START_TEST (test_speech_protection_from_model)
{
  DspModel *named_default = random_model (DSP_WEIGHT_F32);
  DspModel *named_two;
  ModelHelperSpec spec;
  GBytes *bytes;
  guint n = 9600;
  gfloat *x = make_signal (n, 1, 61);
  gfloat *first = g_new0 (gfloat, n + 2 * HOP);
  gfloat *set_two = g_new0 (gfloat, n + 2 * HOP);
  gfloat *at_default = g_new0 (gfloat, n + 2 * HOP);

  model_helper_spec_init_default (&spec, DSP_WEIGHT_F32, 1234);
  spec.speech_protection = 2.0f;
  bytes = model_helper_build (&spec);
  named_two = dsp_model_new_from_bytes (bytes, NULL);
  ck_assert_ptr_nonnull (named_two);
  ck_assert_float_eq (dsp_model_get_speech_protection (named_default),
      DSP_DEFAULT_SPEECH_PROTECTION);

  run_with_first_protection (named_two, x, first, n);
  run_with_first_protection (named_default, x, at_default, n);
  output_energy (named_default, x, n, 2.0f, DSP_DEFAULT_STATIONARY_SUPPRESSION,
      set_two);
  assert_bits_equal (first, set_two, n - 2 * HOP);
  ck_assert (memcmp (first, at_default, (n - 2 * HOP) * sizeof (gfloat)) != 0);

  g_free (first);
  g_free (set_two);
  g_free (at_default);
  g_free (x);
  g_bytes_unref (bytes);
  dsp_model_unref (named_two);
  dsp_model_unref (named_default);
}
END_TEST

/* Settings other than a fresh processor's, in range. */
static void
other_settings (DspProcessorSettings *settings)
{
  dsp_processor_settings_init (settings);
  settings->attenuation_limit_db = 9.0f;
  settings->speech_protection = 0.4f;
  settings->stationary_suppression = 2.5f;
  settings->harmonic_lift = 1.5f;
  settings->speech_hold = 0.3f;
  settings->level_normalization = FALSE;
  settings->hum_removal = FALSE;
  settings->vad_threshold = 0.2f;
  settings->vad_hold_frames = 3;
}

static void
assert_settings_equal (const DspProcessorSettings *a,
    const DspProcessorSettings *b)
{
  ck_assert_float_eq (a->attenuation_limit_db, b->attenuation_limit_db);
  ck_assert_float_eq (a->speech_protection, b->speech_protection);
  ck_assert_float_eq (a->stationary_suppression, b->stationary_suppression);
  ck_assert_float_eq (a->harmonic_lift, b->harmonic_lift);
  ck_assert_float_eq (a->speech_hold, b->speech_hold);
  ck_assert_int_eq (a->level_normalization, b->level_normalization);
  ck_assert_int_eq (a->hum_removal, b->hum_removal);
  ck_assert_float_eq (a->vad_threshold, b->vad_threshold);
  ck_assert_uint_eq (a->vad_hold_frames, b->vad_hold_frames);
}

/* The settings in one struct: a fresh processor has
 * dsp_processor_settings_init()'s with the model's speech protection; what
 * is applied reads back clamped, and -1 goes back to the model's own. */
START_TEST (test_settings_read_back)
{
  DspModel *model = random_model_layout (2);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  DspProcessorSettings defaults, read, wild;

  dsp_processor_settings_init (&defaults);
  ck_assert_float_eq (defaults.attenuation_limit_db, 0.0f);
  ck_assert_float_lt (defaults.speech_protection, 0.0f);
  ck_assert_float_eq (defaults.stationary_suppression,
      DSP_DEFAULT_STATIONARY_SUPPRESSION);
  ck_assert_float_eq (defaults.harmonic_lift, DSP_DEFAULT_HARMONIC_LIFT);
  ck_assert_float_eq (defaults.speech_hold, DSP_DEFAULT_SPEECH_HOLD);
  ck_assert (defaults.level_normalization && defaults.hum_removal);
  ck_assert_float_eq (defaults.vad_threshold, 0.0f);

  dsp_processor_get_settings (p, &read);
  defaults.speech_protection = dsp_model_get_speech_protection (model);
  assert_settings_equal (&read, &defaults);

  wild.attenuation_limit_db = -5.0f;
  wild.speech_protection = NAN;
  wild.stationary_suppression = 1e30f;
  wild.harmonic_lift = -INFINITY;
  wild.speech_hold = 2.0f;
  wild.level_normalization = 7;
  wild.hum_removal = FALSE;
  wild.vad_threshold = NAN;
  wild.vad_hold_frames = 11;
  dsp_processor_apply_settings (p, &wild);
  dsp_processor_get_settings (p, &read);
  ck_assert_float_eq (read.attenuation_limit_db, 0.0f);
  ck_assert_float_eq (read.speech_protection, 0.0f);
  ck_assert_float_eq (read.stationary_suppression,
      DSP_MAX_STATIONARY_SUPPRESSION);
  ck_assert_float_eq (read.harmonic_lift, 0.0f);
  ck_assert_float_eq (read.speech_hold, 1.0f);
  ck_assert_int_eq (read.level_normalization, TRUE);
  ck_assert_int_eq (read.hum_removal, FALSE);
  ck_assert_float_eq (read.vad_threshold, 0.0f);
  ck_assert_uint_eq (read.vad_hold_frames, 11);

  wild = read;
  dsp_processor_apply_settings (p, &read);
  dsp_processor_get_settings (p, &read);
  assert_settings_equal (&read, &wild);

  other_settings (&wild);
  wild.speech_protection = DSP_SPEECH_PROTECTION_OF_MODEL;
  dsp_processor_apply_settings (p, &wild);
  dsp_processor_get_settings (p, &read);
  ck_assert_float_eq (read.speech_protection,
      dsp_model_get_speech_protection (model));

  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST

/* dsp_processor_apply_settings() is the setters one by one: the same
 * output over two buffers; a stream moved to a fresh processor with its
 * settings read back continues bit-exactly, and without them it does not. */
START_TEST (test_settings_apply_and_migrate)
{
  DspModel *model = random_model_layout (2);
  DspProcessor *by_setters = dsp_processor_new (model, 1, NULL);
  DspProcessor *by_struct = dsp_processor_new (model, 1, NULL);
  DspProcessor *moved = dsp_processor_new (model, 1, NULL);
  DspProcessor *moved_bare = dsp_processor_new (model, 1, NULL);
  DspProcessorSettings settings;
  guint half = 4 * HOP + 123, n = 2 * half;
  gfloat *x = make_signal (n, 1, 71);
  gfloat *a = g_new0 (gfloat, n), *b = g_new0 (gfloat, n);
  gfloat *c = g_new0 (gfloat, n), *d = g_new0 (gfloat, n);
  GBytes *state;
  guint got;

  other_settings (&settings);
  dsp_processor_set_attenuation_limit (by_setters,
      settings.attenuation_limit_db);
  dsp_processor_set_speech_protection (by_setters, settings.speech_protection);
  dsp_processor_set_stationary_suppression (by_setters,
      settings.stationary_suppression);
  dsp_processor_set_harmonic_lift (by_setters, settings.harmonic_lift);
  dsp_processor_set_speech_hold (by_setters, settings.speech_hold);
  dsp_processor_set_level_normalization (by_setters,
      settings.level_normalization);
  dsp_processor_set_hum_removal (by_setters, settings.hum_removal);
  dsp_processor_set_vad_gate (by_setters, settings.vad_threshold,
      settings.vad_hold_frames);
  dsp_processor_apply_settings (by_struct, &settings);

  got = dsp_processor_process (by_setters, x, a, half, NULL, NULL, 0, NULL);
  ck_assert_uint_eq (dsp_processor_process (by_struct, x, b, half, NULL, NULL,
                         0, NULL),
      got);
  assert_bits_equal (a, b, got);

  state = dsp_processor_export (by_struct);
  ck_assert (dsp_processor_import (moved, g_bytes_get_data (state, NULL),
      g_bytes_get_size (state), NULL));
  ck_assert (dsp_processor_import (moved_bare, g_bytes_get_data (state, NULL),
      g_bytes_get_size (state), NULL));
  g_bytes_unref (state);
  dsp_processor_get_settings (by_struct, &settings);
  dsp_processor_apply_settings (moved, &settings);

  /* The second buffer: the one where a lost setting or state shows. */
  got = dsp_processor_process (by_setters, x + half, a, half, NULL, NULL, 0,
      NULL);
  ck_assert_uint_eq (dsp_processor_process (by_struct, x + half, b, half, NULL,
                         NULL, 0, NULL),
      got);
  ck_assert_uint_eq (dsp_processor_process (moved, x + half, c, half, NULL,
                         NULL, 0, NULL),
      got);
  ck_assert_uint_eq (dsp_processor_process (moved_bare, x + half, d, half, NULL,
                         NULL, 0, NULL),
      got);
  assert_bits_equal (a, b, got);
  assert_bits_equal (b, c, got);
  ck_assert (memcmp (c, d, got * sizeof (gfloat)) != 0);

  g_free (a);
  g_free (b);
  g_free (c);
  g_free (d);
  g_free (x);
  dsp_processor_free (by_setters);
  dsp_processor_free (by_struct);
  dsp_processor_free (moved);
  dsp_processor_free (moved_bare);
  dsp_model_unref (model);
}
END_TEST

/* @n samples of the speech-like signal over a steady 100 Hz hum. */
static gfloat *
make_hum_signal (guint n)
{
  gfloat *x = make_signal (n, 1, 62);
  guint i;

  for (i = 0; i < n; i++)
    x[i] += 0.1f * sinf (2.0f * G_PI * 100.0f * i / RATE);
  return x;
}

/* The speech-like signal over a steady 100 Hz hum through @model with the
 * given stationary suppression (out-of-range amounts clamped, NaN is 0). */
static gdouble
energy_with_suppression (DspModel *model, gfloat amount, gfloat *y)
{
  guint n = 24000;
  gfloat *x = make_hum_signal (n);
  gdouble energy;

  energy
      = output_energy (model, x, n, DSP_DEFAULT_SPEECH_PROTECTION, amount, y);
  g_free (x);
  return energy;
}

/* Stationary suppression only lowers gains, more the larger it is, on a
 * model that tracks a noise floor (layout 2); out-of-range values are
 * clamped, NaN is off; a layout 1 model has no floor and is unchanged. */
START_TEST (test_stationary_suppression)
{
  const gfloat amounts[]
      = { 0.0f, 1.5f, DSP_MAX_STATIONARY_SUPPRESSION, NAN, 100.0f };
  gsize len = 24000 + 2 * HOP;
  gfloat *y[G_N_ELEMENTS (amounts)];
  gdouble energy[G_N_ELEMENTS (amounts)];
  DspModel *model = random_model_layout (DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2);
  DspModel *model_v1 = random_model_layout (DSP_FEATURE_LAYOUT_CEPSTRUM_V1);
  gfloat *v1_off = g_new0 (gfloat, len), *v1_on = g_new0 (gfloat, len);
  guint k;

  for (k = 0; k < G_N_ELEMENTS (amounts); k++) {
    y[k] = g_new0 (gfloat, len);
    energy[k] = energy_with_suppression (model, amounts[k], y[k]);
  }
  ck_assert (energy[1] < energy[0] * 0.99);
  ck_assert (energy[2] < energy[1] * 0.99);
  assert_bits_equal (y[3], y[0], 24000 - 2 * HOP);
  assert_bits_equal (y[4], y[2], 24000 - 2 * HOP);

  energy_with_suppression (model_v1, 0.0f, v1_off);
  energy_with_suppression (model_v1, DSP_MAX_STATIONARY_SUPPRESSION, v1_on);
  assert_bits_equal (v1_on, v1_off, 24000 - 2 * HOP);

  for (k = 0; k < G_N_ELEMENTS (amounts); k++)
    g_free (y[k]);
  g_free (v1_off);
  g_free (v1_on);
  dsp_model_unref (model);
  dsp_model_unref (model_v1);
}
END_TEST

/* The speech-like signal over a 100 Hz hum through @model with harmonic
 * lift @lift; the output goes to @y (n + 2 * HOP floats), the snapshot
 * after it is returned. */
static GBytes *
run_with_lift (DspModel *model, gfloat lift, gfloat *y, gdouble *energy)
{
  guint n = 24000;
  gfloat *x = make_hum_signal (n);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  guint chunk[1] = { 480 };
  GBytes *snapshot;

  dsp_processor_set_harmonic_lift (p, lift);
  ck_assert_uint_eq (run_chunked (p, x, y, n, chunk, 1), n - 2 * HOP);
  *energy = dsp_samples_energy (y, n - 2 * HOP);
  snapshot = dsp_processor_export (p);
  dsp_processor_free (p);
  g_free (x);
  return snapshot;
}

/* Continues @snapshot without lift on another signal; the output goes to
 * @y (n + 2 * HOP floats). */
static void
continue_without_lift (DspModel *model, GBytes *snapshot, gfloat *y, guint n)
{
  gfloat *x = make_signal (n, 1, 63);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  guint chunk[1] = { 480 };
  GError *error = NULL;

  dsp_processor_set_harmonic_lift (p, 0.0f);
  ck_assert (dsp_processor_import (p, g_bytes_get_data (snapshot, NULL),
      g_bytes_get_size (snapshot), &error));
  ck_assert_uint_eq (run_chunked (p, x, y, n, chunk, 1), n);
  dsp_processor_free (p);
  g_free (x);
}

/* Harmonic lift only raises gains, more the larger it is; out-of-range
 * values are clamped, NaN is off. It keeps no state: a stream that ran
 * with any lift, continued without it, gives the same samples as one that
 * never had it once the output it had pending (2 hops) is out. */
START_TEST (test_harmonic_lift)
{
  const gfloat lifts[]
      = { 0.0f, DSP_DEFAULT_HARMONIC_LIFT, DSP_MAX_HARMONIC_LIFT, NAN, 100.0f };
  guint n = 24000, next = 9600;
  gfloat *y[G_N_ELEMENTS (lifts)], *after[G_N_ELEMENTS (lifts)];
  gdouble energy[G_N_ELEMENTS (lifts)];
  DspModel *model = random_model_layout (DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2);
  guint k;

  for (k = 0; k < G_N_ELEMENTS (lifts); k++) {
    GBytes *snapshot;

    y[k] = g_new0 (gfloat, n + 2 * HOP);
    after[k] = g_new0 (gfloat, next + 2 * HOP);
    snapshot = run_with_lift (model, lifts[k], y[k], &energy[k]);
    continue_without_lift (model, snapshot, after[k], next);
    g_bytes_unref (snapshot);
    assert_bits_equal (after[k] + 2 * HOP, after[0] + 2 * HOP, next - 2 * HOP);
  }
  ck_assert (energy[1] > energy[0] * 1.001);
  ck_assert (energy[2] > energy[1] * 1.001);
  assert_bits_equal (y[3], y[0], n - 2 * HOP);
  assert_bits_equal (y[4], y[2], n - 2 * HOP);
  /* The pending output did carry the lift. */
  ck_assert (memcmp (after[2], after[0], 2 * HOP * sizeof (gfloat)) != 0);

  for (k = 0; k < G_N_ELEMENTS (lifts); k++) {
    g_free (y[k]);
    g_free (after[k]);
  }
  dsp_model_unref (model);
}
END_TEST

/* Relative RMS difference of @b / @scale from @a over @n samples. */
static gdouble
relative_difference (const gfloat *a, const gfloat *b, gdouble scale, gsize n)
{
  gdouble diff = 0.0, ref = 0.0;
  gsize i;

  for (i = 0; i < n; i++) {
    gdouble d = b[i] / scale - a[i];

    diff += d * d;
    ref += (gdouble) a[i] * a[i];
  }
  return sqrt (diff / MAX (ref, 1e-30));
}

/* Runs @x times @scale through a fresh processor of @model with level
 * normalisation @on, two channels, into @y. */
static void
run_scaled (DspModel *model, const gfloat *x, gfloat scale, gboolean on,
    gfloat *y, guint n)
{
  guint channels = 2, chunk[1] = { 777 }, produced;
  gfloat *scaled = g_new (gfloat, (gsize) n * channels);
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  gsize i;

  for (i = 0; i < (gsize) n * channels; i++)
    scaled[i] = x[i] * scale;
  dsp_processor_set_level_normalization (p, on);
  produced = run_chunked (p, scaled, y, n, chunk, 1);
  dsp_processor_drain (p, y + (gsize) produced * channels);
  dsp_processor_free (p);
  g_free (scaled);
}

/* The shipped 48 kHz model, from the source tree (RNNDENOISE_MODELS). */
static DspModel *
shipped_model (void)
{
  const gchar *dir = g_getenv ("RNNDENOISE_MODELS");
  gchar *path;
  GError *error = NULL;
  DspModel *model;

  ck_assert_msg (dir != NULL, "RNNDENOISE_MODELS is not set");
  path = g_build_filename (dir, "rnndenoise-48k.rnnm", NULL);
  model = dsp_model_new_from_file (path, &error);
  ck_assert_msg (model != NULL, "%s: %s", path, error ? error->message : "");
  g_free (path);
  return model;
}

/* With level normalisation (the default) the same stream at -36 dBFS, 20 dB
 * quieter or 6 dB louder (gains within the tracker's bounds) is denoised
 * alike, only scaled: the features see the same level, and what differs
 * is rounding (0.1 is not exact in binary, and a rounding can tip the
 * pitch search to another of two near-equal periods: 1e-3 of the output
 * here; a scale of 2 gives 4e-8). Without it the shipped model's gains
 * follow the level (it lost five times the speech 20 dB down,
 * docs/model.md). */
START_TEST (test_level_normalization)
{
  static const gfloat scales[] = { 0.1f, 2.0f };
  const gfloat base = 0.1f; /* make_signal () is at -16 dBFS */
  guint n = SIGNAL_SAMPLES, channels = 2, s;
  DspModel *model = shipped_model ();
  gfloat *x = make_signal (n, channels, 17);
  gfloat *ref = g_new (gfloat, (gsize) n * channels);
  gfloat *y = g_new (gfloat, (gsize) n * channels);
  gdouble on, off;

  for (s = 0; s < G_N_ELEMENTS (scales); s++) {
    run_scaled (model, x, base, TRUE, ref, n);
    run_scaled (model, x, base * scales[s], TRUE, y, n);
    on = relative_difference (ref, y, scales[s], (gsize) n * channels);
    run_scaled (model, x, base, FALSE, ref, n);
    run_scaled (model, x, base * scales[s], FALSE, y, n);
    off = relative_difference (ref, y, scales[s], (gsize) n * channels);
    ck_assert_double_lt (on, 1e-2);
    ck_assert_double_gt (off, 0.1);
  }
  g_free (x);
  g_free (ref);
  g_free (y);
  dsp_model_unref (model);
}
END_TEST

/* On a model that tracks a noise floor, the protection lifts a band by how
 * far it stands above its floor: a steady noise, which sits on its floor,
 * is lifted far less than the same noise with a voice-like signal coming
 * and going over it. */
START_TEST (test_speech_protection_weights)
{
  DspModel *model = random_model_layout (DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2);
  guint n = 48000, i;
  gfloat *steady = g_new (gfloat, n), *bursts = make_signal (n, 1, 63);
  GRand *rand = g_rand_new_with_seed (64);
  gdouble steady_lift, bursts_lift;

  for (i = 0; i < n; i++) {
    steady[i] = 0.05f * (gfloat) g_rand_double_range (rand, -1.0, 1.0);
    /* The voice-like part on for 200 ms, off for 200 ms. */
    bursts[i] = steady[i] + ((i / 9600) % 2 ? bursts[i] : 0.0f);
  }
  steady_lift = output_energy (model, steady, n, 2.0f, 0.0f, NULL)
      / output_energy (model, steady, n, 0.0f, 0.0f, NULL);
  bursts_lift = output_energy (model, bursts, n, 2.0f, 0.0f, NULL)
      / output_energy (model, bursts, n, 0.0f, 0.0f, NULL);
  ck_assert (steady_lift >= 1.0);
  ck_assert_msg (bursts_lift - 1.0 > 3.0 * (steady_lift - 1.0),
      "lift on bursts %g, on steady noise %g", bursts_lift, steady_lift);
  g_rand_free (rand);
  g_free (steady);
  g_free (bursts);
  dsp_model_unref (model);
}
END_TEST

/* A gate whose threshold no frame reaches silences every frame (with no
 * attenuation limit, to exact zeros); a 20 dB limit keeps a tenth. */
START_TEST (test_vad_gate)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspProcessor *p = dsp_processor_new (model, 2, NULL);
  gfloat *x = make_signal (10 * HOP, 2, 17), *y = g_new (gfloat, 20 * HOP);
  DspProcessorReport report;
  guint produced, i;

  dsp_processor_set_vad_gate (p, 1.0f, 0);
  produced = dsp_processor_process (p, x, y, 10 * HOP, NULL, NULL, 0, &report);
  ck_assert_uint_eq (report.gated_frames, 2 * 10);
  ck_assert_uint_eq (report.held, 2 * HOP);
  for (i = 0; i < produced * 2; i++)
    ck_assert_float_eq (y[i], 0.0f);

  dsp_processor_set_vad_gate (p, 0.0f, 0);
  dsp_processor_process (p, x, y, 10 * HOP, NULL, NULL, 0, &report);
  ck_assert_uint_eq (report.gated_frames, 0);
  g_free (x);
  g_free (y);
  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST

/* Rate, hop and bands come from the model file: a 16 kHz model runs with no
 * code change (hop 160, latency 320). */
START_TEST (test_16k_model)
{
  ModelHelperSpec spec;
  DspModel *model;
  DspProcessor *p;
  GBytes *bytes;
  gfloat *x = make_signal (1600, 1, 2), y[1600];
  guint nf;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_F32, 5);
  ck_assert (dsp_frame_config_init_default (&spec.config, 16000, NULL));
  nf = dsp_feature_layout_n_features (spec.config.feature_layout_id,
      spec.config.n_bands);
  spec.layers[0].input_size = nf;
  spec.layers[3].output_size = spec.config.n_bands;
  bytes = model_helper_build (&spec);
  model = dsp_model_new_from_bytes (bytes, NULL);
  ck_assert_ptr_nonnull (model);
  p = dsp_processor_new (model, 1, NULL);
  ck_assert_uint_eq (dsp_processor_get_hop (p), 160);
  ck_assert_uint_eq (dsp_processor_get_latency (p), 320);
  ck_assert_uint_eq (dsp_processor_process (p, x, y, 1600, NULL, NULL, 0, NULL),
      1280);
  ck_assert_uint_eq (dsp_processor_drain (p, y), 320);
  dsp_processor_free (p);
  dsp_model_unref (model);
  g_bytes_unref (bytes);
  g_free (x);
}
END_TEST

/* The model is shared and ref-counted: a processor keeps it alive. */
START_TEST (test_processor_keeps_model)
{
  DspModel *model = random_model (DSP_WEIGHT_F32);
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  gfloat x[HOP] = { 0 }, y[HOP];

  dsp_model_unref (model);
  dsp_processor_process (p, x, y, HOP, NULL, NULL, 0, NULL);
  dsp_processor_free (p);
}
END_TEST

/* ---- lookahead ----------------------------------------------------------- */

/* Every one of @n values of @got is within @tolerance of @want. */
static void
assert_within (const gfloat *got, const gfloat *want, gsize n, gfloat tolerance)
{
  gfloat worst = 0.0f;
  gsize i;

  for (i = 0; i < n; i++)
    worst = MAX (worst, fabsf (got[i] - want[i]));
  ck_assert_msg (worst < tolerance, "largest |difference| %g", worst);
}

/* The output of a mono processor over make_signal() with the bin-gain
 * head model of @n_bins outputs of @bias, its head named (or, with
 * @unnamed, bin_layer 0: the same network without a head); its energy in
 * @energy. */
static gfloat *
run_bin_head_of (guint n_bins, gfloat bias, gboolean unnamed, gdouble *energy)
{
  gsize size;
  guint8 *data = model_helper_bin_head_model (n_bins, bias, &size);
  DspModel *model;
  DspProcessor *p;
  gfloat *x = make_signal (SIGNAL_SAMPLES, 1, 5);
  gfloat *y = g_new0 (gfloat, SIGNAL_SAMPLES);
  guint i;

  if (unnamed) {
    model_helper_put_u32 (data, DSP_MODEL_HEADER_SIZE, 0);
    model_helper_fix_size_and_checksum (data, size);
  }
  model = model_from_data (data, size);
  p = dsp_processor_new (model, 1, NULL);
  dsp_processor_process (p, x, y, SIGNAL_SAMPLES, NULL, NULL, 0, NULL);
  *energy = 0.0;
  for (i = 0; i < SIGNAL_SAMPLES; i++)
    *energy += (gdouble) y[i] * y[i];
  dsp_processor_free (p);
  dsp_model_unref (model);
  g_free (x);
  return y;
}

/* run_bin_head_of() with the 20-bin head. */
static gfloat *
run_bin_head (gfloat bias, gboolean unnamed, gdouble *energy)
{
  return run_bin_head_of (20, bias, unnamed, energy);
}

/* A bin-gain head corrects the first 20 bins (0..1 kHz), where the test
 * signal's harmonics lie, in the logit domain: zero corrections leave the
 * band gains (to rounding), large negative ones close those bins, large
 * positive ones open them. */
START_TEST (test_bin_head_corrects_low_bins)
{
  gdouble none, zero, closed, opened, diff = 0.0;
  gfloat *y_none = run_bin_head (0.0f, TRUE, &none);
  gfloat *y_zero = run_bin_head (0.0f, FALSE, &zero);
  gfloat *y_closed = run_bin_head (-30.0f, FALSE, &closed);
  gfloat *y_opened = run_bin_head (30.0f, FALSE, &opened);
  guint i;

  ck_assert (none > 0.0);
  for (i = 0; i < SIGNAL_SAMPLES; i++)
    diff = MAX (diff, fabs (y_none[i] - y_zero[i]));
  ck_assert_msg (diff < 1e-4, "a zero head moved a sample by %g", diff);
  ck_assert_msg (closed < 0.1 * none, "closed: %g of %g", closed, none);
  ck_assert_msg (opened > 1.2 * none, "opened: %g of %g", opened, none);
  g_free (y_none);
  g_free (y_zero);
  g_free (y_closed);
  g_free (y_opened);
}
END_TEST

/* The head corrects four bins at a time: a width that is not a multiple
 * of four corrects its last bins too (closing 18 bins takes more than
 * closing 16, less than closing 20; fewer than four bins are corrected as
 * well). Corrections far beyond any exponential's range close or open the
 * bins as large ones do, with finite samples. */
START_TEST (test_bin_head_any_width_and_huge)
{
  gdouble none, closed16, closed18, closed20, closed3, huge;
  guint i;

  g_free (run_bin_head (0.0f, TRUE, &none));
  g_free (run_bin_head_of (16, -30.0f, FALSE, &closed16));
  g_free (run_bin_head_of (18, -30.0f, FALSE, &closed18));
  g_free (run_bin_head_of (20, -30.0f, FALSE, &closed20));
  g_free (run_bin_head_of (3, -30.0f, FALSE, &closed3));
  ck_assert_msg (closed16 > closed18 && closed18 > closed20,
      "closed 16, 18, 20 bins: %g, %g, %g", closed16, closed18, closed20);
  ck_assert_msg (closed3 < none, "closed 3 bins: %g of %g", closed3, none);
  for (i = 0; i < 2; i++) {
    gdouble large;
    gfloat sign = i == 0 ? -1.0f : 1.0f;
    gfloat *y = run_bin_head_of (18, sign * 1e30f, FALSE, &huge);
    guint k;

    g_free (run_bin_head_of (18, sign * 30.0f, FALSE, &large));
    for (k = 0; k < SIGNAL_SAMPLES; k++)
      ck_assert (isfinite (y[k]));
    ck_assert_msg (fabs (huge - large) <= 1e-3 * large,
        "a head of %g: energy %g, of %g: %g", sign * 1e30f, huge, sign * 30.0f,
        large);
    g_free (y);
  }
}
END_TEST

/* A model with lookahead 1 whose band gains are all 1 (zero weights and a
 * large bias in the gain head): input sample i comes out as output sample
 * i, within the STFT's reconstruction error (test_stft.c allows 1e-5). Its
 * latency is one hop more than the same network's without lookahead, and
 * its history one frame more per channel (spectrum and feature row; layout
 * 1 tracks no floor) and the count of frames seen. */
START_TEST (test_lookahead_passes_through)
{
  guint channels = 2, n = 12000, n_bins = HOP + 1, n_features = 36;
  gfloat *x = make_signal (n, channels, 41);
  gfloat *y = g_new0 (gfloat, (gsize) (n + 3 * HOP) * channels);
  guint chunk[1] = { 333 }, produced;
  DspModel *plain, *model;
  DspProcessor *p0, *p;
  guint8 *data;
  gsize size;

  plain = lookahead_model (0, DSP_FEATURE_LAYOUT_CEPSTRUM_V1, DSP_WEIGHT_F32,
      FALSE);
  data = lookahead_model_data (1, DSP_FEATURE_LAYOUT_CEPSTRUM_V1,
      DSP_WEIGHT_F32, FALSE, &size);
  model_helper_fill_weights (data, 3, 0, 32, 0.0f);
  model_helper_fill_bias (data, 3, 30.0f);
  model_helper_fix_size_and_checksum (data, size);
  model = model_from_data (data, size);
  p0 = dsp_processor_new (plain, channels, NULL);
  p = dsp_processor_new (model, channels, NULL);
  /* The signal's vibrato centres on 120 Hz, a steady tone at a mains
   * harmonic the hum canceller would take out. */
  dsp_processor_set_hum_removal (p, FALSE);

  ck_assert_uint_eq (dsp_processor_get_latency (p),
      dsp_processor_get_latency (p0) + HOP);
  ck_assert_uint_eq (dsp_processor_get_model_latency (model), 3 * HOP);
  ck_assert_uint_eq (dsp_processor_get_model_latency (model),
      dsp_processor_get_model_latency (plain) + HOP);
  ck_assert_uint_eq (dsp_processor_get_aligned_latency (model),
      dsp_processor_get_aligned_latency (plain) + HOP);
  ck_assert_uint_eq (dsp_processor_get_state_descriptor (p)->history_size,
      dsp_processor_get_state_descriptor (p0)->history_size
          + channels * (2 * n_bins + n_features) + 1);

  produced = run_chunked (p, x, y, n, chunk, 1);
  ck_assert_uint_eq (produced, n - 3 * HOP);
  produced += dsp_processor_drain (p, y + (gsize) produced * channels);
  ck_assert_uint_eq (produced, n);
  assert_within (y, x, (gsize) n * channels, 1e-5f);

  dsp_processor_free (p0);
  dsp_processor_free (p);
  dsp_model_unref (plain);
  dsp_model_unref (model);
  g_free (x);
  g_free (y);
}
END_TEST

/* A layout 2 model (with a noise floor tracker) whose network cuts every
 * band (gains about e^-20) and says speech with a VAD of about 1
 * (@vad_bias 20) or says none (-20): zero weights and large biases in both
 * heads. */
static DspModel *
cutting_model (gfloat vad_bias)
{
  gsize size;
  guint8 *data = model_helper_cutting_model (RATE, vad_bias, &size);

  return model_from_data (data, size);
}

/* Energy of @y over the times the tone of make_voice_in_rumble() sounds,
 * from the second second on (the floor tracker settled). */
static gdouble
tone_energy (const gfloat *y, guint n)
{
  gdouble e = 0.0;
  guint i;

  for (i = RATE; i < n; i++)
    if (i % (RATE / 2) < RATE / 5)
      e += (gdouble) y[i] * y[i];
  return e;
}

/* A 150 Hz voice (200 ms in every 500) over a steady 120 Hz rumble 6 dB
 * under it and a faint white noise. */
static gfloat *
make_voice_in_rumble (guint n)
{
  gfloat *x = g_new (gfloat, n);
  GRand *rand = g_rand_new_with_seed (17);
  guint i;

  for (i = 0; i < n; i++) {
    gdouble t = (gdouble) i / RATE;
    gdouble voice
        = i % (RATE / 2) < RATE / 5 ? 0.2 * sin (2 * G_PI * 150.0 * t) : 0.0;

    x[i] = (gfloat) (voice + 0.1 * sin (2 * G_PI * 120.0 * t)
        + 0.001 * g_rand_double_range (rand, -1.0, 1.0));
  }
  g_rand_free (rand);
  return x;
}

/* @model over make_voice_in_rumble() with harmonic lift @lift (hum removal
 * off, so that only the gains act); returns the output's energy while the
 * voice sounds. */
static gdouble
voice_kept (DspModel *model, gfloat lift, const gfloat *x, guint n)
{
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  gfloat *y = g_new0 (gfloat, n);
  guint chunk[1] = { HOP }, produced;
  gdouble e;

  dsp_processor_set_hum_removal (p, FALSE);
  dsp_processor_set_harmonic_lift (p, lift);
  produced = run_chunked (p, x, y, n, chunk, 1);
  e = tone_energy (y, produced);
  dsp_processor_free (p);
  g_free (y);
  return e;
}

/* In a frame with speech, the bins below 300 Hz keep what stands above
 * their band's steady noise, even where the network cuts every band: a
 * voice that comes and goes over a steady rumble gets through a network
 * that cuts everything, with any harmonic lift, at more than a third of
 * its energy (what the rumble leaves of it); without the lift, or where
 * the network hears no speech, (almost) nothing does. */
START_TEST (test_keep_above_floor)
{
  guint n = 4 * RATE;
  gfloat *x = make_voice_in_rumble (n);
  DspModel *speech = cutting_model (20.0f), *silence = cutting_model (-20.0f);
  gdouble voice = 0.0, kept, kept_max, no_lift, no_speech;
  guint i;

  for (i = RATE; i < n; i++) {
    gdouble t = (gdouble) i / RATE;

    if (i % (RATE / 2) < RATE / 5)
      voice += 0.04 * pow (sin (2 * G_PI * 150.0 * t), 2);
  }
  kept = voice_kept (speech, DSP_DEFAULT_HARMONIC_LIFT, x, n);
  kept_max = voice_kept (speech, DSP_MAX_HARMONIC_LIFT, x, n);
  no_lift = voice_kept (speech, 0.0f, x, n);
  no_speech = voice_kept (silence, DSP_DEFAULT_HARMONIC_LIFT, x, n);
  ck_assert_msg (kept > voice / 3.0, "kept %g of %g", kept, voice);
  ck_assert_msg (kept < voice * 1.5, "kept %g of %g", kept, voice);
  ck_assert_double_eq_tol (kept_max, kept, 1e-6 * voice);
  ck_assert_msg (no_lift < voice * 1e-6, "no lift: %g of %g", no_lift, voice);
  ck_assert_msg (no_speech < voice * 1e-6, "no speech: %g of %g", no_speech,
      voice);
  dsp_model_unref (speech);
  dsp_model_unref (silence);
  g_free (x);
}
END_TEST

/* model_helper_vad_fixed_model() at RATE: speech everywhere (+20) or
 * nowhere (-20). */
static DspModel *
vad_fixed_model (gfloat vad_bias)
{
  gsize size;
  guint8 *data = model_helper_vad_fixed_model (RATE, vad_bias, &size);

  return model_from_data (data, size);
}

/* Mono output of @model over @x with speech hold @hold; returns its
 * energy. */
static gdouble
run_with_hold (DspModel *model, gfloat hold, const gfloat *x, gfloat *y,
    guint n)
{
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  guint chunk[1] = { 777 }, produced, i;
  gdouble e = 0.0;

  dsp_processor_set_speech_hold (p, hold);
  produced = run_chunked (p, x, y, n, chunk, 1);
  produced += dsp_processor_drain (p, y + produced);
  ck_assert_uint_eq (produced, n);
  for (i = 0; i < n; i++)
    e += (gdouble) y[i] * y[i];
  dsp_processor_free (p);
  return e;
}

/* The speech hold acts in frames with speech only and only raises gains:
 * with a network that hears speech everywhere the default hold changes
 * the output and keeps more of it than no hold; with one that hears none
 * the output is the same bits with and without. The gains it holds from
 * are stream state: a stream exported and imported mid-way (into a
 * processor that ran other audio) continues with the same bits. */
START_TEST (test_speech_hold)
{
  guint n = SIGNAL_SAMPLES;
  gfloat *x = make_signal (n, 1, 5);
  gfloat *held = g_new0 (gfloat, n), *free_fall = g_new0 (gfloat, n);
  DspModel *speech = vad_fixed_model (20.0f),
           *silence = vad_fixed_model (-20.0f);
  gdouble e_held, e_free;

  e_held = run_with_hold (speech, DSP_DEFAULT_SPEECH_HOLD, x, held, n);
  e_free = run_with_hold (speech, 0.0f, x, free_fall, n);
  ck_assert_msg (memcmp (held, free_fall, n * sizeof (gfloat)) != 0,
      "the hold changed nothing");
  ck_assert_msg (e_held > e_free, "held %g, without %g", e_held, e_free);

  run_with_hold (silence, DSP_DEFAULT_SPEECH_HOLD, x, held, n);
  run_with_hold (silence, 0.0f, x, free_fall, n);
  assert_bits_equal (held, free_fall, n);

  check_continuation (speech, 2400);
  check_continuation (speech, 5003);
  dsp_model_unref (speech);
  dsp_model_unref (silence);
  g_free (x);
  g_free (held);
  g_free (free_fall);
}
END_TEST

/* A network whose gains are all 1 (zero weights, a large bias in the gain
 * head): the processor's output is its input but for what it does before
 * the network, such as taking out hum. */
static DspModel *
pass_through_model (void)
{
  gsize size;
  guint8 *data = lookahead_model_data (0, DSP_FEATURE_LAYOUT_CEPSTRUM_V1,
      DSP_WEIGHT_F32, FALSE, &size);
  DspModel *model;

  model_helper_fill_weights (data, 3, 0, 32, 0.0f);
  model_helper_fill_bias (data, 3, 30.0f);
  model_helper_fix_size_and_checksum (data, size);
  model = model_from_data (data, size);
  return model;
}

/* Noise with a 50.2 Hz hum 20 dB over it, through a network that passes
 * everything: with hum removal (the default) what comes out from the
 * eighth second on is the noise, the hum more than 25 dB down; without
 * it the hum stays. A third processor that turns removal off at 2 s and
 * on again at 4 s gives the first one's output from the frame after (the
 * synthesis overlaps one frame): its canceller followed the hum while
 * removal was off, so it takes it out at once, as the first one does (the
 * network, all zero weights, and feature layout 1, with no noise floor,
 * make the output depend on nothing else). */
START_TEST (test_hum_removal)
{
  guint n = 12 * RATE, i, k, chunk[1] = { HOP };
  DspModel *model = pass_through_model ();
  DspProcessor *on, *off, *toggled;
  gfloat *noise = g_new (gfloat, n), *x = g_new (gfloat, n), *hum;
  gfloat *y_on = g_new0 (gfloat, n), *y_off = g_new0 (gfloat, n);
  gfloat *y_toggled = g_new0 (gfloat, n);
  GRand *rand = g_rand_new_with_seed (5);
  guint produced[3] = { 0, 0, 0 }, t;

  hum = g_new0 (gfloat, n);
  for (i = 0; i < n; i++) {
    noise[i] = (gfloat) (0.003 * g_rand_double_range (rand, -1.0, 1.0));
    for (k = 1; k <= 10; k++)
      hum[i] += (gfloat) (0.05 / k * sin (2 * G_PI * k * 50.2 * i / RATE + k));
    x[i] = noise[i] + hum[i];
  }
  on = dsp_processor_new (model, 1, NULL);
  off = dsp_processor_new (model, 1, NULL);
  toggled = dsp_processor_new (model, 1, NULL);
  dsp_processor_set_hum_removal (off, FALSE);
  for (t = 0; t < n / HOP; t++) {
    if (t == 2 * RATE / HOP)
      dsp_processor_set_hum_removal (toggled, FALSE);
    if (t == 4 * RATE / HOP)
      dsp_processor_set_hum_removal (toggled, TRUE);
    produced[0]
        += run_chunked (on, x + t * HOP, y_on + produced[0], HOP, chunk, 1);
    produced[1]
        += run_chunked (off, x + t * HOP, y_off + produced[1], HOP, chunk, 1);
    produced[2] += run_chunked (toggled, x + t * HOP, y_toggled + produced[2],
        HOP, chunk, 1);
  }
  ck_assert_double_lt (model_helper_difference_db (y_on, noise, hum, 8 * RATE,
                           produced[0]),
      -25.0);
  ck_assert_double_gt (model_helper_difference_db (y_off, noise, hum, 8 * RATE,
                           produced[1]),
      -1.0);
  ck_assert (memcmp (y_on + 4 * RATE + HOP, y_toggled + 4 * RATE + HOP,
                 (produced[0] - 4 * RATE - HOP) * sizeof (gfloat))
      == 0);

  g_rand_free (rand);
  dsp_processor_free (on);
  dsp_processor_free (off);
  dsp_processor_free (toggled);
  dsp_model_unref (model);
  g_free (noise);
  g_free (hum);
  g_free (x);
  g_free (y_on);
  g_free (y_off);
  g_free (y_toggled);
}
END_TEST

/* @n samples of a voice-like signal, on for 200 ms and off for 200 ms,
 * over a steady noise: the bands' levels move above their noise floor and
 * back. */
static gfloat *
make_bursts_signal (guint n)
{
  gfloat *x = make_signal (n, 1, 63);
  GRand *rand = g_rand_new_with_seed (64);
  guint i;

  for (i = 0; i < n; i++)
    x[i] = 0.05f * (gfloat) g_rand_double_range (rand, -1.0, 1.0)
        + ((i / 9600) % 2 ? x[i] : 0.0f);
  g_rand_free (rand);
  return x;
}

/* @x through @model with the post-processing that reads the noise-floor
 * tracker at its strongest; the output, drained, goes to @y. */
static void
run_floor_steps (DspModel *model, const gfloat *x, guint n, gfloat *y)
{
  DspProcessor *p = dsp_processor_new (model, 1, NULL);
  guint chunk[1] = { HOP }, produced;

  dsp_processor_set_speech_protection (p, 2.0f);
  dsp_processor_set_stationary_suppression (p, DSP_MAX_STATIONARY_SUPPRESSION);
  dsp_processor_set_harmonic_lift (p, 0.0f);
  produced = run_chunked (p, x, y, n, chunk, 1);
  produced += dsp_processor_drain (p, y + produced);
  ck_assert_uint_eq (produced, n);
  dsp_processor_free (p);
}

/* A model that reads frames ahead but gives them zero weights computes
 * what the same network without lookahead does. With the stationary
 * suppression and the speech protection at their strongest (both read the
 * noise-floor tracker, which moves on with every frame), its output is
 * the plain model's, sample for sample, within the rounding of layer 0's
 * longer sums: a frame's gains are limited and weighed by that frame's
 * floor distances, not by those of the frames read ahead. */
START_TEST (test_lookahead_ignored_gives_plain_output)
{
  guint n = 48000;
  gfloat *x = make_bursts_signal (n);
  gfloat *plain_y = g_new0 (gfloat, n), *y = g_new0 (gfloat, n);
  DspModel *plain = lookahead_model (0, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2,
      DSP_WEIGHT_F32, FALSE);
  DspModel *model = lookahead_model (_i + 1, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2,
      DSP_WEIGHT_F32, TRUE);

  run_floor_steps (plain, x, n, plain_y);
  run_floor_steps (model, x, n, y);
  assert_within (y, plain_y, n, 1e-5f);

  g_free (x);
  g_free (y);
  g_free (plain_y);
  dsp_model_unref (plain);
  dsp_model_unref (model);
}
END_TEST

/* What a mono processor of @model with every post-processing step off
 * should give, computed without one: each of @n_frames frames analysed,
 * the network run from the zero state on the rows [f (t), ..., f (t + L)]
 * for t = 0 .. n_frames - 1 - L, frame t's spectrum scaled by its
 * interpolated gains and synthesised into y[t * HOP ..]. The hidden state
 * after each row goes to @hidden (rows x state size), the VAD to @vad.
 * Under flush-to-zero, as the processor computes. */
static void
reference_lookahead (DspModel *model, const gfloat *x, guint n_frames,
    gfloat *y, gfloat *hidden, gfloat *vad)
{
  const DspFrameConfig *cfg = dsp_model_get_frame_config (model);
  guint lookahead = dsp_model_get_lookahead (model);
  guint nf = dsp_model_get_n_features (model);
  gsize bins2 = (gsize) (cfg->window / 2 + 1) * 2;
  gsize state = dsp_model_state_size (model, 1);
  DspStft *stft = dsp_stft_new (cfg);
  DspFeatures *feat = dsp_features_new (cfg);
  gfloat *spectra = g_new (gfloat, n_frames * bins2);
  gfloat *features = g_new (gfloat, (gsize) n_frames * nf);
  gfloat *row = g_new (gfloat, dsp_model_get_n_inputs (model));
  gfloat *h = g_new0 (gfloat, state);
  gfloat *scratch = g_new (gfloat, dsp_model_scratch_size (model, 1));
  gfloat gains[DSP_MAX_BANDS], energies[DSP_MAX_BANDS];
  gfloat bin_gains[DSP_MAX_BINS];
  guint t, k;
#if defined(__SSE2__)
  guint csr = _mm_getcsr ();

  _mm_setcsr (csr | 0x8040u);
#endif

  for (t = 0; t < n_frames; t++) {
    dsp_stft_analyze (stft, x + (gsize) t * HOP, spectra + t * bins2);
    dsp_features_compute (feat, spectra + t * bins2, features + t * nf,
        energies);
  }
  for (t = 0; t + lookahead < n_frames; t++) {
    for (k = 0; k <= lookahead; k++)
      memcpy (row + k * nf, features + (gsize) (t + k) * nf,
          nf * sizeof (gfloat));
    dsp_model_forward (model, row, h, 1, gains, &vad[t], scratch);
    memcpy (hidden + t * state, h, state * sizeof (gfloat));
    dsp_features_interpolate_gains (feat, gains, bin_gains);
    dsp_features_apply_gains (feat, bin_gains, 0.0f, spectra + t * bins2);
    dsp_stft_synthesize (stft, spectra + t * bins2, y + (gsize) t * HOP);
  }
#if defined(__SSE2__)
  _mm_setcsr (csr);
#endif
  dsp_stft_free (stft);
  dsp_features_free (feat);
  g_free (spectra);
  g_free (features);
  g_free (row);
  g_free (h);
  g_free (scratch);
}

/* The network's row for frame t is [f (t), ..., f (t + L)], and its gains
 * go to frame t's spectrum. The model's layer 0 reads only the frames
 * ahead (its weights for the frame's own features are zero), and the
 * processor must give, bit for bit, what reference_lookahead() gives: its
 * output sample i is the reference synthesis' sample i + the STFT delay.
 * Fed one hop per call, its recurrent state stays the zero state through
 * the stream's first L frames (the network does not run, VAD 0), then
 * equals the reference's after row t - L when frame t completes, as does
 * its VAD. Rows, gains or spectra off by a frame would differ. */
START_TEST (test_lookahead_alignment)
{
  guint lookahead = _i + 1, n_frames = 30, n_features = 36;
  gfloat *x = make_signal (n_frames * HOP, 1, 71);
  gfloat *y = g_new0 (gfloat, n_frames * HOP);
  gfloat *ref_y = g_new0 (gfloat, n_frames * HOP);
  gfloat *ref_hidden, *ref_vad = g_new (gfloat, n_frames), *hidden;
  guint produced = 0, t;
  DspProcessorReport report;
  DspProcessor *p;
  DspModel *model;
  guint8 *data;
  gsize size, state, i;

  data = lookahead_model_data (lookahead, DSP_FEATURE_LAYOUT_CEPSTRUM_V1,
      DSP_WEIGHT_F32, FALSE, &size);
  model_helper_fill_weights (data, 0, 0, n_features, 0.0f);
  model_helper_fix_size_and_checksum (data, size);
  model = model_from_data (data, size);
  ck_assert_uint_eq (dsp_model_get_n_features (model), n_features);
  state = dsp_model_state_size (model, 1);
  ref_hidden = g_new (gfloat, n_frames * state);
  hidden = g_new (gfloat, state);
  reference_lookahead (model, x, n_frames, ref_y, ref_hidden, ref_vad);

  p = dsp_processor_new (model, 1, NULL);
  dsp_processor_set_speech_protection (p, 0.0f);
  dsp_processor_set_stationary_suppression (p, 0.0f);
  dsp_processor_set_harmonic_lift (p, 0.0f);
  /* The reference analyses the input as it is, hum and all. */
  dsp_processor_set_level_normalization (p, FALSE);
  dsp_processor_set_hum_removal (p, FALSE);
  for (t = 0; t < n_frames; t++) {
    produced += dsp_processor_process (p, x + t * HOP, y + produced, HOP, NULL,
        NULL, 0, &report);
    ck_assert_uint_eq (report.frames, 1);
    rnn_state_slot_peek (dsp_processor_get_slot (p), hidden, NULL, NULL);
    if (t < lookahead) {
      for (i = 0; i < state; i++)
        ck_assert_msg (hidden[i] == 0.0f, "frame %u: state moved", t);
      ck_assert_float_eq (report.vad_max, 0.0f);
      continue;
    }
    ck_assert_msg (memcmp (hidden, ref_hidden + (t - lookahead) * state,
                       state * sizeof (gfloat))
            == 0,
        "frame %u: state is not the reference's after row %u", t,
        t - lookahead);
    ck_assert_float_eq (dsp_processor_get_frame_vad (p, 0),
        ref_vad[t - lookahead]);
  }
  ck_assert_uint_eq (produced, (n_frames - 2 - lookahead) * HOP);
  assert_bits_equal (ref_y + HOP, y, produced);

  dsp_processor_free (p);
  dsp_model_unref (model);
  g_free (x);
  g_free (y);
  g_free (ref_y);
  g_free (ref_hidden);
  g_free (ref_vad);
  g_free (hidden);
}
END_TEST

/* Export mid-stream (the delay line empty, filling or full, mid-frame or
 * not), import into a processor that ran other audio, continue: the same
 * bits as one run. Lookahead 1 on layout 2 (the delay line also keeps the
 * floor distances) and lookahead 2 on layout 3, int8x8 as shipped. */
START_TEST (test_lookahead_continuation)
{
  DspModel *model = _i % 2
      ? lookahead_model (2, DSP_FEATURE_LAYOUT_PITCH_V3, DSP_WEIGHT_S8X8, FALSE)
      : lookahead_model (1, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, DSP_WEIGHT_F32,
          FALSE);

  check_continuation (model, split_points[_i / 2]);
  dsp_model_unref (model);
}
END_TEST

/* Frame-output mode with lookahead: the same samples as the default mode;
 * calls of whole frames give as many samples as they take once the
 * aligned latency (STFT delay and lookahead, 3 hops for lookahead 2) is
 * in, and the processor holds that much. */
START_TEST (test_lookahead_frame_output)
{
  DspModel *model = lookahead_model (2, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2,
      DSP_WEIGHT_F32, FALSE);
  guint channels = 2, n = 9600, aligned = 3 * HOP;
  gfloat *x = make_signal (n, channels, 33);
  gfloat *ref_y = g_new0 (gfloat, (gsize) (n + 4 * HOP) * channels);
  gfloat *y = g_new0 (gfloat, (gsize) (n + 4 * HOP) * channels);
  DspProcessor *ref = dsp_processor_new (model, channels, NULL);
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  guint chunk[1] = { HOP }, ref_n, done, produced = 0;
  DspProcessorReport report;

  ck_assert_uint_eq (dsp_processor_get_aligned_latency (model), aligned);
  ref_n = run_chunked (ref, x, ref_y, n, chunk, 1);
  ref_n += dsp_processor_drain (ref, ref_y + (gsize) ref_n * channels);
  ck_assert_uint_eq (ref_n, n);

  dsp_processor_set_frame_output (p, TRUE);
  for (done = 0; done < n; done += HOP) {
    guint got = dsp_processor_process (p, x + (gsize) done * channels,
        y + (gsize) produced * channels, HOP, NULL, NULL, 0, &report);

    produced += got;
    ck_assert_uint_eq (got, done >= aligned ? HOP : 0);
    ck_assert_uint_eq (report.held, MIN (done + HOP, aligned));
  }
  produced += dsp_processor_drain (p, y + (gsize) produced * channels);
  ck_assert_uint_eq (produced, n);
  assert_bits_equal (ref_y, y, (gsize) n * channels);

  g_free (x);
  g_free (y);
  g_free (ref_y);
  dsp_processor_free (ref);
  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST

/* A reset while the delay line is filling (one frame of two in) or full
 * and mid-frame gives a fresh stream: the whole state (hidden state and
 * history, delay line and frames seen included) is a new processor's, and
 * the samples after it are a new processor's. */
START_TEST (test_lookahead_reset)
{
  static const guint before[] = { HOP + 7, 5 * HOP + 100 };
  DspModel *model = lookahead_model (2, DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2,
      DSP_WEIGHT_F32, FALSE);
  guint channels = 2, n = 6000;
  gfloat *x = make_signal (n + before[_i], channels, 35);
  gfloat *y = g_new0 (gfloat, (gsize) (n + 4 * HOP) * channels);
  gfloat *fresh_y = g_new0 (gfloat, (gsize) (n + 4 * HOP) * channels);
  DspProcessor *p = dsp_processor_new (model, channels, NULL);
  DspProcessor *fresh = dsp_processor_new (model, channels, NULL);
  RnnStateSlot *slot = dsp_processor_get_slot (p);
  const RnnStateDescriptor *desc = rnn_state_slot_get_descriptor (slot);
  gsize n_hidden = rnn_state_descriptor_n_values (desc);
  gsize n_history = desc->history_size;
  gfloat *hidden[2], *history[2];
  guint chunk[1] = { 700 }, produced, fresh_n, k;

  for (k = 0; k < 2; k++) {
    hidden[k] = g_new (gfloat, n_hidden);
    history[k] = g_new (gfloat, n_history);
  }
  run_chunked (p, x, y, before[_i], chunk, 1);
  dsp_processor_reset (p, TRUE);
  rnn_state_slot_peek (slot, hidden[0], history[0], NULL);
  rnn_state_slot_peek (dsp_processor_get_slot (fresh), hidden[1], history[1],
      NULL);
  ck_assert (memcmp (hidden[0], hidden[1], n_hidden * sizeof (gfloat)) == 0);
  ck_assert (memcmp (history[0], history[1], n_history * sizeof (gfloat)) == 0);

  produced = run_chunked (p, x + (gsize) before[_i] * channels, y, n, chunk, 1);
  produced += dsp_processor_drain (p, y + (gsize) produced * channels);
  fresh_n = run_chunked (fresh, x + (gsize) before[_i] * channels, fresh_y, n,
      chunk, 1);
  fresh_n += dsp_processor_drain (fresh, fresh_y + (gsize) fresh_n * channels);
  ck_assert_uint_eq (produced, n);
  ck_assert_uint_eq (fresh_n, n);
  assert_bits_equal (fresh_y, y, (gsize) n * channels);

  for (k = 0; k < 2; k++) {
    g_free (hidden[k]);
    g_free (history[k]);
  }
  g_free (x);
  g_free (y);
  g_free (fresh_y);
  dsp_processor_free (p);
  dsp_processor_free (fresh);
  dsp_model_unref (model);
}
END_TEST

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
/* Counting allocator: forwards to glibc's and counts while armed. Not built
 * under AddressSanitizer or ThreadSanitizer, which own malloc. */
extern void *__libc_malloc (size_t size);
extern void *__libc_calloc (size_t n, size_t size);
extern void *__libc_realloc (void *p, size_t size);
static gint allocations_armed = 0;
static gint allocations = 0;


void *
malloc (size_t size)
{
  if (g_atomic_int_get (&allocations_armed))
    g_atomic_int_inc (&allocations);
  return __libc_malloc (size);
}

void *
calloc (size_t n, size_t size)
{
  if (g_atomic_int_get (&allocations_armed))
    g_atomic_int_inc (&allocations);
  return __libc_calloc (n, size);
}

void *
realloc (void *p, size_t size)
{
  if (g_atomic_int_get (&allocations_armed))
    g_atomic_int_inc (&allocations);
  return __libc_realloc (p, size);
}

/* Also with a lookahead model, whose delay line moves every frame. */
START_TEST (test_no_allocation_in_steady_state)
{
  DspModel *model = _i
      ? lookahead_model (2, DSP_FEATURE_LAYOUT_PITCH_V3, DSP_WEIGHT_S8X8, FALSE)
      : random_model (DSP_WEIGHT_S8);
  DspProcessor *p = dsp_processor_new (model, 2, NULL);
  const RnnStateDescriptor *desc
      = rnn_state_slot_get_descriptor (dsp_processor_get_slot (p));
  gsize side_size = rnn_state_descriptor_hidden_bytes (desc);
  gpointer side = g_malloc (side_size);
  gfloat *x = make_signal (20 * HOP, 2, 1), *y = g_new (gfloat, 40 * HOP);
  guint k;

  dsp_processor_process (p, x, y, 2 * HOP, desc, side, side_size, NULL);
  g_atomic_int_set (&allocations, 0);
  g_atomic_int_set (&allocations_armed, 1);
  for (k = 0; k < 18; k++)
    dsp_processor_process (p, x + 2 * k * HOP, y, HOP + (k % 3), desc, side,
        side_size, NULL);
  g_atomic_int_set (&allocations_armed, 0);
  ck_assert_int_eq (g_atomic_int_get (&allocations), 0);
  g_free (side);
  g_free (x);
  g_free (y);
  dsp_processor_free (p);
  dsp_model_unref (model);
}
END_TEST
#endif

static Suite *
processor_suite (void)
{
  Suite *s = suite_create ("processor");
  TCase *tc;

  tc = tcase_create ("lifecycle");
  tcase_add_test (tc, test_new_and_latency);
  tcase_add_test (tc, test_processor_keeps_model);
  tcase_add_test (tc, test_16k_model);
  tcase_add_test (tc, test_vad_gate);
  tcase_add_test (tc, test_settings_read_back);
  tcase_add_test (tc, test_settings_apply_and_migrate);
  tcase_add_test (tc, test_speech_protection);
  tcase_add_test (tc, test_speech_protection_from_model);
  tcase_add_test (tc, test_stationary_suppression);
  tcase_add_test (tc, test_harmonic_lift);
  tcase_add_test (tc, test_speech_hold);
  tcase_add_test (tc, test_keep_above_floor);
  tcase_add_test (tc, test_level_normalization);
  tcase_add_test (tc, test_speech_protection_weights);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  tcase_add_loop_test (tc, test_no_allocation_in_steady_state, 0, 2);
#endif
  suite_add_tcase (s, tc);

  tc = tcase_create ("persistence");
  tcase_add_test (tc, test_two_invocations_and_reset);
  tcase_add_loop_test (tc, test_buffer_sizes_do_not_matter, 0,
      G_N_ELEMENTS (chunkings));
  tcase_add_loop_test (tc, test_drain_gives_exact_count, 0,
      2 * G_N_ELEMENTS (drain_lengths));
  suite_add_tcase (s, tc);

  tc = tcase_create ("frame-output");
  tcase_add_loop_test (tc, test_frame_output_same_samples, 0,
      G_N_ELEMENTS (frame_chunkings));
  tcase_add_loop_test (tc, test_frame_output_migration, 0,
      G_N_ELEMENTS (split_points));
  suite_add_tcase (s, tc);

  tc = tcase_create ("migration");
  tcase_add_loop_test (tc, test_export_import_continuation, 0,
      4 * G_N_ELEMENTS (split_points));
  tcase_add_loop_test (tc, test_same_bits_on_every_kernel, 0, 5);
  tcase_add_test (tc, test_import_refused_keeps_state);
  tcase_add_test (tc, test_side_output_formats);
  tcase_add_test (tc, test_take_pending_import);
  suite_add_tcase (s, tc);

  tc = tcase_create ("bad-input");
  tcase_add_loop_test (tc, test_nonfinite_input, 0, 2);
  tcase_add_loop_test (tc, test_damaged_history_repaired, 0, 3);
  tcase_add_test (tc, test_denormals_and_fp_mode);
  suite_add_tcase (s, tc);

  tc = tcase_create ("lookahead");
  tcase_add_test (tc, test_lookahead_passes_through);
  tcase_add_test (tc, test_hum_removal);
  tcase_add_test (tc, test_bin_head_corrects_low_bins);
  tcase_add_test (tc, test_bin_head_any_width_and_huge);
  tcase_add_loop_test (tc, test_lookahead_alignment, 0, DSP_MAX_LOOKAHEAD);
  tcase_add_loop_test (tc, test_lookahead_ignored_gives_plain_output, 0,
      DSP_MAX_LOOKAHEAD);
  tcase_add_loop_test (tc, test_lookahead_continuation, 0,
      2 * G_N_ELEMENTS (split_points));
  tcase_add_test (tc, test_lookahead_frame_output);
  tcase_add_loop_test (tc, test_lookahead_reset, 0, 2);
  suite_add_tcase (s, tc);

  tc = tcase_create ("threads");
  tcase_add_test (tc, test_threads_match_sequential);
  suite_add_tcase (s, tc);
  return s;
}

RNN_CHECK_MAIN (processor_suite);
