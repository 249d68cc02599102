/* rnndenoise — unit tests: the model file loader and the forward pass
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Reference outputs come from tests/ref/nnet_ref.py (committed in
 * tests/unit/data); corrupted and random models from model_helper.c.
 */
#include "config.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <check.h>

#include "check_main.h"
#include <glib.h>
#include <glib/gstdio.h>

#include "dsp/dsp_error.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_model.h"
#include "dsp/dsp_gru.h"
#include "dsp/dsp_model_private.h"
#include "tests/unit/model_helper.h"

#define REF_FILE "model_ref.bin"
#define REF_FRAMES 8
#define REF_BATCH 2

/* ---- helpers ------------------------------------------------------------ */

static DspModel *
load_data_model (const gchar *name)
{
  gchar *path = model_helper_data_path (name);
  GError *error = NULL;
  DspModel *model = dsp_model_new_from_file (path, &error);

  ck_assert_msg (model != NULL, "%s: %s", path, error ? error->message : "");
  g_free (path);
  return model;
}

static gfloat *
ref_floats (const gchar *name, gsize expect)
{
  gsize n;
  gfloat *v = model_helper_ref_array (REF_FILE, name, FALSE, &n);

  ck_assert_msg (v != NULL, "reference array %s missing", name);
  ck_assert_uint_eq (n, expect);
  return v;
}

static void
assert_close (const gfloat *got, const gfloat *want, gsize n, gfloat tol,
    const gchar *what, guint frame)
{
  gsize i;

  for (i = 0; i < n; i++) {
    ck_assert_msg (fabsf (got[i] - want[i]) <= tol,
        "%s frame %u [%" G_GSIZE_FORMAT "]: got %.7f, want %.7f (tol %g)", what,
        frame, i, got[i], want[i], tol);
  }
}

/* Loads bytes that must be refused; checks domain, code and that the
 * message contains needle. */
static void
assert_refused (const guint8 *data, gsize size, gint code, const gchar *needle)
{
  GBytes *bytes = g_bytes_new (data, size);
  GError *error = NULL;
  DspModel *model = dsp_model_new_from_bytes (bytes, &error);

  ck_assert_msg (model == NULL, "corrupt model accepted (%s)", needle);
  ck_assert_ptr_nonnull (error);
  ck_assert_msg (error->domain == DSP_ERROR, "domain %s: %s",
      g_quark_to_string (error->domain), error->message);
  if (code >= 0)
    ck_assert_msg (error->code == code, "code %d, want %d: %s", error->code,
        code, error->message);
  if (needle != NULL)
    ck_assert_msg (strstr (error->message, needle) != NULL,
        "message \"%s\" lacks \"%s\"", error->message, needle);
  g_error_free (error);
  g_bytes_unref (bytes);
}

/* ---- reference vectors ------------------------------------------------ */

static void
run_reference (const gchar *model_file, const gchar *want, gfloat tol)
{
  DspModel *model = load_data_model (model_file);
  guint n_bands = dsp_model_get_frame_config (model)->n_bands;
  guint n_feat = dsp_model_get_n_features (model);
  gsize n_hidden = dsp_model_state_size (model, REF_BATCH);
  gfloat *features = ref_floats ("features", REF_FRAMES * REF_BATCH * n_feat);
  gfloat *hidden = ref_floats ("h0", n_hidden);
  gchar *gname = g_strconcat ("gains_", want, NULL);
  gchar *vname = g_strconcat ("vad_", want, NULL);
  gchar *hname = g_strconcat ("hidden_", want, NULL);
  gfloat *want_gains = ref_floats (gname, REF_FRAMES * REF_BATCH * n_bands);
  gfloat *want_vad = ref_floats (vname, REF_FRAMES * REF_BATCH);
  gfloat *want_hidden = ref_floats (hname, REF_FRAMES * n_hidden);
  gfloat *scratch = g_new (gfloat, dsp_model_scratch_size (model, REF_BATCH));
  gfloat gains[REF_BATCH * DSP_MAX_BANDS], vad[REF_BATCH];
  guint t;

  for (t = 0; t < REF_FRAMES; t++) {
    dsp_model_forward (model, features + t * REF_BATCH * n_feat, hidden,
        REF_BATCH, gains, vad, scratch);
    assert_close (gains, want_gains + t * REF_BATCH * n_bands,
        REF_BATCH * n_bands, tol, gname, t);
    assert_close (vad, want_vad + t * REF_BATCH, REF_BATCH, tol, vname, t);
    assert_close (hidden, want_hidden + t * n_hidden, n_hidden, tol, hname, t);
  }

  g_free (scratch);
  g_free (want_gains);
  g_free (want_vad);
  g_free (want_hidden);
  g_free (features);
  g_free (hidden);
  g_free (gname);
  g_free (vname);
  g_free (hname);
  dsp_model_unref (model);
}

START_TEST (test_forward_f32_matches_reference)
{
  run_reference ("model_f32.rnnm", "f32", MODEL_HELPER_REF_TOLERANCE);
}
END_TEST

START_TEST (test_forward_s8_matches_reference)
{
  run_reference ("model_s8.rnnm", "s8", MODEL_HELPER_REF_TOLERANCE);
}
END_TEST

/* The int8 model stays within the documented tolerance of the float one. */
START_TEST (test_forward_s8_close_to_float)
{
  run_reference ("model_s8.rnnm", "f32", MODEL_HELPER_INT8_TOLERANCE);
}
END_TEST

/* int8x8 layers (quantised inputs), mixed with float32 ones where the
 * inputs are not bounded, against the numpy reference computing the same
 * quantisation. */
START_TEST (test_forward_s8x8_matches_reference)
{
  run_reference ("model_s8x8.rnnm", "s8x8", MODEL_HELPER_REF_TOLERANCE);
}
END_TEST

START_TEST (test_forward_s8x8_close_to_float_reference)
{
  run_reference ("model_s8x8.rnnm", "f32", MODEL_HELPER_INT8X8_TOLERANCE);
}
END_TEST

/* ---- accessors and the state descriptor -------------------------------- */

static guint64
fnv1a64 (const guint8 *data, gsize size)
{
  guint64 h = G_GUINT64_CONSTANT (14695981039346656037);
  gsize i;

  for (i = 0; i < size; i++)
    h = (h ^ data[i]) * G_GUINT64_CONSTANT (1099511628211);
  return h;
}

/* @m holds the packed layout of its weights exactly where this CPU has
 * the vector kernels and @m is int8x8, and that layout (and its sign
 * flag) is dsp_matrix_pack()'s. */
static void
assert_packed_as_cpu (const DspMatrix *m)
{
  gsize size = dsp_matrix_packed_size (m->type, m->rows, m->cols);
  DspMatrix fresh = *m;
  guint8 *want;

  if (m->type != DSP_WEIGHT_S8X8
      || dsp_dense_get_kernels () < DSP_KERNELS_AVX2) {
    ck_assert_ptr_null (m->packed);
    ck_assert_uint_eq (size, 0);
    return;
  }
  ck_assert_ptr_nonnull (m->packed);
  want = g_malloc (size);
  dsp_matrix_pack (&fresh, want);
  ck_assert_mem_eq (m->packed, want, size);
  ck_assert_int_eq (m->packed_sign_safe, fresh.packed_sign_safe);
  g_free (want);
}

/* The loader packs every int8x8 matrix of a model (the dense layers', and
 * both of each GRU's, which the GRU cells copy) for the vector kernels
 * where the CPU has them, and no other. */
START_TEST (test_loader_packs_for_vector_kernels)
{
  static const DspWeightType types[]
      = { DSP_WEIGHT_F32, DSP_WEIGHT_S8, DSP_WEIGHT_S8X8 };
  guint t, i;

  for (t = 0; t < G_N_ELEMENTS (types); t++) {
    GBytes *bytes = model_helper_random_model (types[t], 3);
    g_autoptr (DspModel) model = dsp_model_new_from_bytes (bytes, NULL);

    ck_assert_ptr_nonnull (model);
    for (i = 0; i < model->n_layers; i++) {
      const DspModelLayer *layer = &model->layers[i];

      if (layer->info.kind == DSP_LAYER_DENSE) {
        assert_packed_as_cpu (&layer->dense.weights);
      } else {
        const DspGruWeights *cell = dsp_gru_get_weights (layer->cell);

        assert_packed_as_cpu (&layer->gru.w_ih);
        assert_packed_as_cpu (&layer->gru.w_hh);
        ck_assert_ptr_eq (cell->w_ih.packed, layer->gru.w_ih.packed);
        ck_assert_ptr_eq (cell->w_hh.packed, layer->gru.w_hh.packed);
        ck_assert_int_eq (cell->w_hh.packed_sign_safe,
            layer->gru.w_hh.packed_sign_safe);
      }
    }
    g_bytes_unref (bytes);
  }
}
END_TEST

START_TEST (test_accessors)
{
  GBytes *bytes = model_helper_random_model (DSP_WEIGHT_F32, 1);
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  g_autoptr (DspModel) model = dsp_model_new_from_bytes (bytes, NULL);
  DspFrameConfig want;
  const DspFrameConfig *cfg;
  DspLayerInfo info;
  RnnStateDescriptor desc;
  guint b;

  ck_assert_ptr_nonnull (model);
  ck_assert (dsp_frame_config_init_default (&want, 48000, NULL));
  cfg = dsp_model_get_frame_config (model);
  ck_assert_uint_eq (cfg->sample_rate, want.sample_rate);
  ck_assert_uint_eq (cfg->hop, want.hop);
  ck_assert_uint_eq (cfg->window, want.window);
  ck_assert_uint_eq (cfg->n_bands, want.n_bands);
  ck_assert_uint_eq (cfg->feature_layout_id, want.feature_layout_id);
  for (b = 0; b <= want.n_bands; b++)
    ck_assert_uint_eq (cfg->band_edges[b], want.band_edges[b]);
  ck_assert_uint_eq (dsp_model_get_n_features (model),
      dsp_feature_layout_n_features (want.feature_layout_id, want.n_bands));
  /* A file with 0 in the lookahead field reads its frame alone. */
  ck_assert_uint_eq (dsp_model_get_lookahead (model), 0);
  ck_assert_uint_eq (dsp_model_get_n_inputs (model),
      dsp_model_get_n_features (model));

  ck_assert_uint_eq (dsp_model_get_id (model), fnv1a64 (data, size - 4));
  ck_assert_uint_eq (dsp_model_get_checksum (model),
      model_helper_get_u32 (data, size - 4));
  ck_assert_uint_eq (dsp_model_get_n_layers (model), 5);
  ck_assert_uint_eq (dsp_model_get_gain_layer (model), 3);
  ck_assert_uint_eq (dsp_model_get_vad_layer (model), 4);
  ck_assert_uint_eq (dsp_model_get_n_gru_layers (model), 2);
  ck_assert_uint_eq (dsp_model_get_gru_hidden_size (model, 0), 24);
  ck_assert_uint_eq (dsp_model_get_gru_hidden_size (model, 1), 32);

  ck_assert (dsp_model_get_layer_info (model, 2, &info));
  ck_assert_int_eq (info.kind, DSP_LAYER_GRU);
  ck_assert_uint_eq (info.input, 2);
  ck_assert_uint_eq (info.input_size, 24);
  ck_assert_uint_eq (info.output_size, 32);
  ck_assert_int_eq (info.state_layer, 1);
  ck_assert_uint_eq (info.n_params, 3 * 32 * (24 + 32) + 6 * 32);
  ck_assert (dsp_model_get_layer_info (model, 0, &info));
  ck_assert_int_eq (info.kind, DSP_LAYER_DENSE);
  ck_assert_int_eq (info.activation, DSP_ACTIVATION_TANH);
  ck_assert_int_eq (info.state_layer, -1);
  ck_assert (!dsp_model_get_layer_info (model, 5, &info));
  ck_assert_uint_eq (dsp_model_get_n_params (model),
      (36 * 24 + 24) + (3 * 24 * 48 + 6 * 24) + (3 * 32 * 56 + 6 * 32)
          + (32 * 24 + 24) + (32 + 1));

  dsp_model_init_state_descriptor (model, 3, 17, &desc);
  ck_assert (rnn_state_descriptor_validate (&desc, NULL));
  ck_assert_uint_eq (desc.model_id, dsp_model_get_id (model));
  ck_assert_int_eq (desc.cell, RNN_STATE_CELL_GRU);
  ck_assert_int_eq (desc.direction, RNN_STATE_DIRECTION_FORWARD);
  ck_assert_int_eq (desc.element_type, RNN_STATE_ELEMENT_F32);
  ck_assert_uint_eq (desc.batch, 3);
  ck_assert_uint_eq (desc.n_layers, 2);
  ck_assert_uint_eq (desc.hidden[0], 24);
  ck_assert_uint_eq (desc.hidden[1], 32);
  ck_assert_uint_eq (desc.history_size, 17);
  ck_assert_uint_eq (rnn_state_descriptor_hidden_bytes (&desc),
      dsp_model_state_size (model, 3) * sizeof (gfloat));
  ck_assert_uint_eq (rnn_state_descriptor_layer_offset (&desc, 1), 3 * 24);
  ck_assert_uint_eq (dsp_model_scratch_size (model, 3),
      3 * (24 + 24 + 1) + 6 * 32);
  g_bytes_unref (bytes);
}
END_TEST

/* A model with lookahead L reads rows of 1 + L frames' features: layer 0
 * has n_features x (1 + L) inputs, dsp_model_forward() reads all of them
 * (the gains follow the last frame's features), and the same file with
 * lookahead 0 is refused, its layer 0 being too wide. */
START_TEST (test_lookahead_model)
{
  guint lookahead = _i + 1;
  ModelHelperSpec spec;
  GBytes *bytes;
  gsize size;
  guint8 *data;
  GError *error = NULL;
  DspModel *model;
  DspLayerInfo info;
  gchar *needle;
  gfloat *row, *scratch, hidden[56] = { 0 }, gains[2][24], vad[2];
  guint n_feat, n_in, i, k;

  model_helper_spec_init_lookahead (&spec, DSP_WEIGHT_F32, 9, lookahead);
  bytes = model_helper_build (&spec);
  model = dsp_model_new_from_bytes (bytes, &error);
  ck_assert_msg (model != NULL, "%s", error ? error->message : "");
  n_feat = dsp_model_get_n_features (model);
  n_in = dsp_model_get_n_inputs (model);
  ck_assert_uint_eq (dsp_model_get_lookahead (model), lookahead);
  ck_assert_uint_eq (n_feat, 36);
  ck_assert_uint_eq (n_in, 36 * (1 + lookahead));
  ck_assert (dsp_model_get_layer_info (model, 0, &info));
  ck_assert_uint_eq (info.input_size, n_in);
  ck_assert_uint_eq (dsp_model_state_size (model, 1), G_N_ELEMENTS (hidden));

  row = g_new (gfloat, n_in);
  scratch = g_new (gfloat, dsp_model_scratch_size (model, 1));
  for (k = 0; k < 2; k++) {
    for (i = 0; i < n_in; i++)
      row[i] = sinf (0.37f * i);
    /* Only the last value of the row differs. */
    row[n_in - 1] += 2.0f * k;
    memset (hidden, 0, sizeof (hidden));
    dsp_model_forward (model, row, hidden, 1, gains[k], &vad[k], scratch);
  }
  ck_assert (memcmp (gains[0], gains[1], sizeof (gains[0])) != 0);
  g_free (row);
  g_free (scratch);
  dsp_model_unref (model);

  data = g_bytes_unref_to_data (bytes, &size);
  model_helper_put_u32 (data, 44, 0);
  model_helper_fix_size_and_checksum (data, size);
  needle = g_strdup_printf ("layer 0: input_size %u, the feature vector has "
                            "36 values",
      n_in);
  assert_refused (data, size, DSP_ERROR_CORRUPT, needle);
  g_free (needle);
  g_free (data);
}
END_TEST

/* A version 2 file names its speech protection; a version 1 file (no
 * such field, the band edges 4 bytes earlier) names none and gets the
 * default. Both load the same network, and a file is refused if it is
 * shorter than its version's header. */
START_TEST (test_speech_protection_field)
{
  ModelHelperSpec spec;
  GBytes *v1, *v2;
  DspModel *m1, *m2;
  gfloat features[36], hidden[2][56] = { { 0 } }, gains[2][24], vad[2];
  gfloat *scratch;
  guint8 tiny[DSP_MODEL_HEADER_SIZE_V1 + DSP_MODEL_CHECKSUM_SIZE] = { 0 };
  guint i;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_F32, 4);
  spec.speech_protection = 0.25f;
  v2 = model_helper_build (&spec);
  spec.version = 1;
  v1 = model_helper_build (&spec);
  ck_assert_uint_eq (g_bytes_get_size (v2), g_bytes_get_size (v1) + 4);
  m1 = dsp_model_new_from_bytes (v1, NULL);
  m2 = dsp_model_new_from_bytes (v2, NULL);
  ck_assert (m1 != NULL && m2 != NULL);
  ck_assert_uint_eq (dsp_model_get_format_version (m1), 1);
  ck_assert_uint_eq (dsp_model_get_format_version (m2), 2);
  ck_assert_float_eq (dsp_model_get_speech_protection (m1),
      DSP_DEFAULT_SPEECH_PROTECTION);
  ck_assert_float_eq (dsp_model_get_speech_protection (m2), 0.25f);
  ck_assert_uint_ne (dsp_model_get_id (m1), dsp_model_get_id (m2));

  for (i = 0; i < G_N_ELEMENTS (features); i++)
    features[i] = cosf (0.21f * i);
  scratch = g_new (gfloat, dsp_model_scratch_size (m1, 1));
  dsp_model_forward (m1, features, hidden[0], 1, gains[0], &vad[0], scratch);
  dsp_model_forward (m2, features, hidden[1], 1, gains[1], &vad[1], scratch);
  ck_assert (memcmp (gains[0], gains[1], sizeof (gains[0])) == 0);
  ck_assert (memcmp (hidden[0], hidden[1], sizeof (hidden[0])) == 0);
  g_free (scratch);
  dsp_model_unref (m1);
  dsp_model_unref (m2);
  g_bytes_unref (v1);
  g_bytes_unref (v2);

  /* 52 bytes: a whole version 1 header and checksum, not a version 2
   * one. */
  memcpy (tiny, DSP_MODEL_MAGIC, 4);
  model_helper_put_u32 (tiny, 4, 2);
  model_helper_fix_size_and_checksum (tiny, sizeof (tiny));
  assert_refused (tiny, sizeof (tiny), DSP_ERROR_CORRUPT,
      "shorter than the 56-byte header of version 2");
}
END_TEST

/* A version 3 file names a bin-gain head: its outputs, read after a
 * forward pass, are the corrections of the first bins; bin_layer 0 is
 * none; a head that is not a dense layer of its own with linear outputs,
 * at most one per bin, reading a layer, is refused. */
START_TEST (test_bin_head)
{
  gfloat features[36] = { 0 }, hidden[56] = { 0 }, gains[2][24], vad;
  gfloat *scratch;
  const gfloat *d;
  DspModel *m;
  GBytes *bytes;
  guint8 *data;
  gsize size;
  guint i;

  data = model_helper_bin_head_model (20, 0.75f, &size);
  bytes = g_bytes_new_static (data, size);
  m = dsp_model_new_from_bytes (bytes, NULL);
  g_bytes_unref (bytes);
  ck_assert (m != NULL);
  ck_assert_uint_eq (dsp_model_get_format_version (m), 3);
  ck_assert_uint_eq (dsp_model_get_bin_layer (m), 5);
  ck_assert_uint_eq (dsp_model_get_n_bin_gains (m), 20);
  scratch = g_new (gfloat, dsp_model_scratch_size (m, 2));
  dsp_model_forward (m, features, hidden, 1, gains[0], &vad, scratch);
  d = dsp_model_get_bin_corrections (m, scratch, 1, 0);
  ck_assert (d != NULL);
  for (i = 0; i < 20; i++)
    ck_assert_float_eq (d[i], 0.75f);
  g_free (scratch);
  dsp_model_unref (m);

  /* bin_layer 0: no head; the layer is there but nothing reads it. */
  model_helper_put_u32 (data, DSP_MODEL_HEADER_SIZE, 0);
  model_helper_fix_size_and_checksum (data, size);
  bytes = g_bytes_new_static (data, size);
  m = dsp_model_new_from_bytes (bytes, NULL);
  g_bytes_unref (bytes);
  ck_assert (m != NULL);
  ck_assert_uint_eq (dsp_model_get_n_bin_gains (m), 0);
  scratch = g_new (gfloat, dsp_model_scratch_size (m, 1));
  ck_assert (dsp_model_get_bin_corrections (m, scratch, 1, 0) == NULL);
  g_free (scratch);
  dsp_model_unref (m);

  /* The gain head, the VAD head, a missing layer, a GRU. */
  model_helper_put_u32 (data, DSP_MODEL_HEADER_SIZE, 3);
  model_helper_fix_size_and_checksum (data, size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "bin_layer 3 is a dense");
  model_helper_put_u32 (data, DSP_MODEL_HEADER_SIZE, 4);
  model_helper_fix_size_and_checksum (data, size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "bin_layer 4");
  model_helper_put_u32 (data, DSP_MODEL_HEADER_SIZE, 6);
  model_helper_fix_size_and_checksum (data, size);
  assert_refused (data, size, DSP_ERROR_CORRUPT,
      "bin_layer 6, the model has 6 layers");
  model_helper_put_u32 (data, DSP_MODEL_HEADER_SIZE, 2);
  model_helper_fix_size_and_checksum (data, size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "bin_layer 2 is a gru");
  /* A sigmoid head. */
  model_helper_put_u32 (data, DSP_MODEL_HEADER_SIZE, 5);
  model_helper_put_u32 (data, model_helper_layer_record (data, 5) + 16,
      DSP_ACTIVATION_SIGMOID);
  model_helper_fix_size_and_checksum (data, size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "sigmoid outputs");
  g_free (data);

  /* More outputs than the 481 bins of a 960-sample window. */
  data = model_helper_bin_head_model (482, 0.0f, &size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "1..481 linear outputs");
  g_free (data);
}
END_TEST

/* The id follows the contents: same bytes, same id; other weights, other
 * id. */
START_TEST (test_model_id)
{
  GBytes *a = model_helper_random_model (DSP_WEIGHT_F32, 1);
  GBytes *b = model_helper_random_model (DSP_WEIGHT_F32, 1);
  GBytes *c = model_helper_random_model (DSP_WEIGHT_F32, 2);
  GBytes *d = model_helper_random_model (DSP_WEIGHT_S8, 1);
  DspModel *ma = dsp_model_new_from_bytes (a, NULL);
  DspModel *mb = dsp_model_new_from_bytes (b, NULL);
  DspModel *mc = dsp_model_new_from_bytes (c, NULL);
  DspModel *md = dsp_model_new_from_bytes (d, NULL);

  ck_assert (ma && mb && mc && md);
  ck_assert_uint_eq (dsp_model_get_id (ma), dsp_model_get_id (mb));
  ck_assert_uint_ne (dsp_model_get_id (ma), dsp_model_get_id (mc));
  ck_assert_uint_ne (dsp_model_get_id (ma), dsp_model_get_id (md));
  dsp_model_unref (ma);
  dsp_model_unref (mb);
  dsp_model_unref (mc);
  dsp_model_unref (md);
  g_bytes_unref (a);
  g_bytes_unref (b);
  g_bytes_unref (c);
  g_bytes_unref (d);
}
END_TEST

static const DspWeightType weight_types[]
    = { DSP_WEIGHT_F32, DSP_WEIGHT_S8, DSP_WEIGHT_S8X8 };

/* Random models of every weight type give gains and VAD in 0..1 and a
 * bounded state. */
START_TEST (test_forward_random_models)
{
  GBytes *bytes = model_helper_random_model (weight_types[_i], 99);
  DspModel *model = dsp_model_new_from_bytes (bytes, NULL);
  guint n_feat, n_bands, t, i;
  gsize n_hidden;
  gfloat *features, *hidden, *scratch, *gains, vad[4];
  GRand *rand = g_rand_new_with_seed (5);

  ck_assert_ptr_nonnull (model);
  n_feat = dsp_model_get_n_features (model);
  n_bands = dsp_model_get_frame_config (model)->n_bands;
  n_hidden = dsp_model_state_size (model, 4);
  features = g_new (gfloat, 4 * n_feat);
  hidden = g_new0 (gfloat, n_hidden);
  scratch = g_new (gfloat, dsp_model_scratch_size (model, 4));
  gains = g_new (gfloat, 4 * n_bands);
  for (t = 0; t < 50; t++) {
    for (i = 0; i < 4 * n_feat; i++)
      features[i] = (gfloat) g_rand_double_range (rand, -3.0, 3.0);
    dsp_model_forward (model, features, hidden, 4, gains, vad, scratch);
    for (i = 0; i < 4 * n_bands; i++)
      ck_assert (gains[i] >= 0.0f && gains[i] <= 1.0f);
    for (i = 0; i < 4; i++)
      ck_assert (vad[i] >= 0.0f && vad[i] <= 1.0f);
    for (i = 0; i < n_hidden; i++)
      ck_assert (fabsf (hidden[i]) <= 1.0f);
  }
  g_rand_free (rand);
  g_free (features);
  g_free (hidden);
  g_free (scratch);
  g_free (gains);
  dsp_model_unref (model);
  g_bytes_unref (bytes);
}
END_TEST

/* The same random network as float32 and as int8x8 (the helper draws the
 * same weights for both): 50 frames of random features stay within
 * MODEL_HELPER_INT8X8_TOLERANCE on gains, VAD and hidden state, and the
 * int8x8 run does differ (its inputs really are quantised). */
START_TEST (test_forward_s8x8_close_to_float)
{
  GBytes *fb = model_helper_random_model (DSP_WEIGHT_F32, 21);
  GBytes *qb = model_helper_random_model (DSP_WEIGHT_S8X8, 21);
  DspModel *f = dsp_model_new_from_bytes (fb, NULL);
  DspModel *q = dsp_model_new_from_bytes (qb, NULL);
  guint n_feat, n_bands, t, i;
  gsize n_hidden;
  gfloat *features, *hf, *hq, *scratch, gf[DSP_MAX_BANDS], gq[DSP_MAX_BANDS];
  gfloat vf, vq;
  gdouble worst = 0.0;
  GRand *rand = g_rand_new_with_seed (22);

  ck_assert (f != NULL && q != NULL);
  n_feat = dsp_model_get_n_features (f);
  n_bands = dsp_model_get_frame_config (f)->n_bands;
  n_hidden = dsp_model_state_size (f, 1);
  features = g_new (gfloat, n_feat);
  hf = g_new0 (gfloat, n_hidden);
  hq = g_new0 (gfloat, n_hidden);
  scratch = g_new (gfloat, dsp_model_scratch_size (f, 1));
  for (t = 0; t < 50; t++) {
    for (i = 0; i < n_feat; i++)
      features[i] = (gfloat) g_rand_double_range (rand, -3.0, 3.0);
    dsp_model_forward (f, features, hf, 1, gf, &vf, scratch);
    dsp_model_forward (q, features, hq, 1, gq, &vq, scratch);
    for (i = 0; i < n_bands; i++)
      worst = MAX (worst, fabsf (gf[i] - gq[i]));
    worst = MAX (worst, fabsf (vf - vq));
    for (i = 0; i < n_hidden; i++)
      worst = MAX (worst, fabsf (hf[i] - hq[i]));
  }
  ck_assert_double_le (worst, MODEL_HELPER_INT8X8_TOLERANCE);
  ck_assert_double_gt (worst, 0.0);

  g_rand_free (rand);
  g_free (features);
  g_free (hf);
  g_free (hq);
  g_free (scratch);
  dsp_model_unref (f);
  dsp_model_unref (q);
  g_bytes_unref (fb);
  g_bytes_unref (qb);
}
END_TEST

/* ---- corrupted fields ---------------------------------------------------- */

/* Where a corruption goes: an absolute header offset, or a field of a layer
 * record. */
#define HEADER (-1)
#define TRAILER (-100)
#define EDGE(k) (-2 - (k))

typedef enum
{
  FIX,    /* repair file_size and checksum after */
  NO_FIX, /* leave them, the patch is about them */
} Repair;

typedef struct
{
  const gchar *what;
  gint layer;   /* HEADER, EDGE (k) or a layer index */
  guint offset; /* in the header or in the layer record */
  guint32 value;
  Repair repair;
  gint code;
  const gchar *needle;
} Corruption;

/* The default helper model: 0 dense 36->24 tanh, 1 GRU 24->24, 2 GRU
 * 24->32, 3 dense 32->24 sigmoid (gains), 4 dense 32->1 sigmoid (VAD). */
/* clang-format off */
static const Corruption corruptions[] = {
  { "magic", HEADER, 0, 0x4d444e58, NO_FIX, DSP_ERROR_CORRUPT, "magic" },
  { "version", HEADER, 4, 4, NO_FIX, DSP_ERROR_UNSUPPORTED, "version 4" },
  { "version zero", HEADER, 4, 0, NO_FIX, DSP_ERROR_UNSUPPORTED,
    "version 0" },
  { "version down", HEADER, 4, 1, FIX, DSP_ERROR_INVALID, "band_edges" },
  { "file_size", HEADER, 8, 12345, NO_FIX, DSP_ERROR_CORRUPT, "file_size" },
  { "checksum", TRAILER, 0, 0xdeadbeef, NO_FIX, DSP_ERROR_CORRUPT,
    "checksum" },
  { "payload", HEADER, 12, 44100, NO_FIX, DSP_ERROR_CORRUPT, "checksum" },
  { "rate low", HEADER, 12, 0, FIX, DSP_ERROR_INVALID, "sample_rate 0" },
  { "rate high", HEADER, 12, 1000000, FIX, DSP_ERROR_INVALID, "sample_rate" },
  { "hop zero", HEADER, 16, 0, FIX, DSP_ERROR_INVALID, "hop 0" },
  { "hop odd", HEADER, 16, 481, FIX, DSP_ERROR_INVALID, "window 960" },
  { "window", HEADER, 20, 961, FIX, DSP_ERROR_INVALID, "window 961" },
  { "bands zero", HEADER, 24, 0, FIX, DSP_ERROR_INVALID, "n_bands 0" },
  { "bands many", HEADER, 24, 33, FIX, DSP_ERROR_INVALID, "n_bands 33" },
  { "bands huge", HEADER, 24, 0xffffffff, FIX, DSP_ERROR_INVALID, "n_bands" },
  { "bands fewer", HEADER, 24, 23, FIX, DSP_ERROR_INVALID, "band_edges[23]" },
  { "layout", HEADER, 28, 4, FIX, DSP_ERROR_UNSUPPORTED,
    "feature_layout_id 4" },
  { "layers zero", HEADER, 32, 0, FIX, DSP_ERROR_CORRUPT, "n_layers 0" },
  { "layers many", HEADER, 32, 17, FIX, DSP_ERROR_CORRUPT, "n_layers 17" },
  { "layers fewer", HEADER, 32, 4, FIX, DSP_ERROR_CORRUPT, "vad_layer 4" },
  { "gain index", HEADER, 36, 9, FIX, DSP_ERROR_CORRUPT, "gain_layer 9" },
  { "gain kind", HEADER, 36, 2, FIX, DSP_ERROR_CORRUPT, "gain_layer 2" },
  { "vad shape", HEADER, 40, 3, FIX, DSP_ERROR_CORRUPT, "vad_layer 3" },
  { "lookahead", HEADER, 44, 3, FIX, DSP_ERROR_UNSUPPORTED,
    "lookahead 3 is outside 0..2" },
  { "lookahead huge", HEADER, 44, 0xffffffff, FIX, DSP_ERROR_UNSUPPORTED,
    "lookahead 4294967295" },
  { "lookahead input", HEADER, 44, 1, FIX, DSP_ERROR_CORRUPT,
    "layer 0: input_size 36, lookahead 1 gives feature rows of 2 frames" },
  { "protection high", HEADER, 48, 0x40400000 /* 3.0f */, FIX,
    DSP_ERROR_CORRUPT, "speech_protection 3 is outside 0..2" },
  { "protection negative", HEADER, 48, 0xbf000000 /* -0.5f */, FIX,
    DSP_ERROR_CORRUPT, "speech_protection -0.5" },
  { "protection nan", HEADER, 48, 0x7fc00000, FIX, DSP_ERROR_CORRUPT,
    "speech_protection nan" },
  { "protection inf", HEADER, 48, 0x7f800000, FIX, DSP_ERROR_CORRUPT,
    "speech_protection inf" },
  { "edge first", EDGE (0), 0, 1, FIX, DSP_ERROR_INVALID, "band_edges[0]" },
  { "edge order", EDGE (5), 0, 8, FIX, DSP_ERROR_INVALID, "band_edges[5]" },
  { "edge last", EDGE (24), 0, 479, FIX, DSP_ERROR_INVALID,
    "band_edges[24]" },
  { "kind unknown", 0, 0, 3, FIX, DSP_ERROR_UNSUPPORTED, "kind 3" },
  { "kind swapped", 1, 0, DSP_LAYER_DENSE, FIX, DSP_ERROR_CORRUPT,
    "weights size" },
  { "input self", 1, 4, 2, FIX, DSP_ERROR_CORRUPT, "input 2" },
  { "input ahead", 0, 4, 1, FIX, DSP_ERROR_CORRUPT, "input 1" },
  { "input layer", 3, 4, 2, FIX, DSP_ERROR_CORRUPT, "input_size 32" },
  { "input size", 0, 8, 35, FIX, DSP_ERROR_CORRUPT, "input_size 35" },
  { "chain size", 2, 8, 23, FIX, DSP_ERROR_CORRUPT, "input_size 23" },
  { "output zero", 1, 12, 0, FIX, DSP_ERROR_CORRUPT, "output_size 0" },
  { "output huge", 1, 12, 2000, FIX, DSP_ERROR_CORRUPT, "output_size 2000" },
  { "output size", 2, 12, 33, FIX, DSP_ERROR_CORRUPT, "weights size" },
  { "activation", 0, 16, 4, FIX, DSP_ERROR_UNSUPPORTED, "activation 4" },
  { "gru activation", 1, 16, 1, FIX, DSP_ERROR_UNSUPPORTED, "activation 1" },
  { "weight type", 0, 20, 3, FIX, DSP_ERROR_UNSUPPORTED, "weight type 3" },
  { "weight type s8", 0, 20, 1, FIX, DSP_ERROR_CORRUPT, "weights size" },
  { "weight type s8x8", 1, 20, 2, FIX, DSP_ERROR_CORRUPT, "weights size" },
  { "weights header", 0, 24, 0, FIX, DSP_ERROR_CORRUPT, "outside" },
  { "weights beyond", 1, 24, 0x7ffffff0, FIX, DSP_ERROR_CORRUPT, "outside" },
  { "weights wrap", 1, 24, 0xfffffff0, FIX, DSP_ERROR_CORRUPT, "outside" },
  { "weights align", 2, 24, 0, FIX, DSP_ERROR_CORRUPT, "multiple of 4" },
  { "weights size", 0, 28, 36 * 24 * 4 + 4, FIX, DSP_ERROR_CORRUPT,
    "weights size" },
  { "bias size", 4, 36, 0, FIX, DSP_ERROR_CORRUPT, "bias size" },
  { "scales offset", 3, 40, 4096, FIX, DSP_ERROR_CORRUPT, "empty blob" },
  { "scales size", 3, 44, 96, FIX, DSP_ERROR_CORRUPT, "scales size" },
  { "weight nan", 0, 0, 0x7fc00000, FIX, DSP_ERROR_CORRUPT, "not finite" },
};
/* clang-format on */

START_TEST (test_corrupt_field)
{
  const Corruption *c = &corruptions[_i];
  GBytes *bytes = model_helper_random_model (DSP_WEIGHT_F32, 3);
  gsize size;
  guint8 *data = g_bytes_unref_to_data (bytes, &size);
  gsize at;

  if (c->layer == HEADER) {
    at = c->offset;
  } else if (c->layer == TRAILER) {
    at = size - 4;
  } else if (c->layer <= EDGE (0)) {
    guint16 le = GUINT16_TO_LE ((guint16) c->value);

    memcpy (data + DSP_MODEL_HEADER_SIZE + 2 * (EDGE (0) - c->layer), &le, 2);
    at = G_MAXSIZE;
  } else if (strcmp (c->what, "weight nan") == 0) {
    /* the first float of layer 0's weights */
    at = model_helper_get_u32 (data, model_helper_layer_record (data, 0) + 24);
  } else if (strcmp (c->what, "weights align") == 0) {
    at = model_helper_layer_record (data, c->layer) + c->offset;
    model_helper_put_u32 (data, at, model_helper_get_u32 (data, at) + 2);
    at = G_MAXSIZE;
  } else {
    at = model_helper_layer_record (data, c->layer) + c->offset;
  }
  if (at != G_MAXSIZE)
    model_helper_put_u32 (data, at, c->value);
  if (c->repair == FIX)
    model_helper_fix_size_and_checksum (data, size);

  assert_refused (data, size, c->code, c->needle);
  g_free (data);
}
END_TEST

/* A flipped bit anywhere in the weights is caught by the checksum. */
START_TEST (test_corrupt_payload_bit)
{
  GBytes *bytes = model_helper_random_model (DSP_WEIGHT_S8, 3);
  gsize size, pos;
  guint8 *data = g_bytes_unref_to_data (bytes, &size);

  for (pos = 0; pos < size; pos += 997) {
    data[pos] ^= 0x10;
    assert_refused (data, size, -1, NULL);
    data[pos] ^= 0x10;
  }
  g_free (data);
}
END_TEST

/* Without any GRU the model has no state: refused. */
START_TEST (test_corrupt_no_gru)
{
  ModelHelperSpec spec;
  GBytes *bytes;
  gsize size;
  guint8 *data;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_F32, 4);
  spec.n_layers = 3;
  spec.layers[1] = spec.layers[3];
  spec.layers[1].input = 1;
  spec.layers[1].input_size = 24;
  spec.layers[2] = spec.layers[4];
  spec.layers[2].input = 1;
  spec.layers[2].input_size = 24;
  spec.gain_layer = 1;
  spec.vad_layer = 2;
  bytes = model_helper_build (&spec);
  data = g_bytes_unref_to_data (bytes, &size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "no GRU");
  g_free (data);
}
END_TEST

/* int8x8 weights quantise their inputs over [-1, 1]: a layer reading the
 * features, or a relu or linear layer, is refused; layers reading a tanh
 * layer, a GRU (and a GRU's own hidden state) load. */
START_TEST (test_s8x8_needs_bounded_inputs)
{
  ModelHelperSpec spec;
  DspLayerInfo info;
  DspModel *model;
  GBytes *bytes;
  gsize size;
  guint8 *data;
  guint i;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_S8X8, 5);
  bytes = model_helper_build (&spec);
  model = dsp_model_new_from_bytes (bytes, NULL);
  ck_assert_ptr_nonnull (model);
  for (i = 0; i < spec.n_layers; i++) {
    ck_assert (dsp_model_get_layer_info (model, i, &info));
    ck_assert_int_eq (info.weight_type,
        i == 0 ? DSP_WEIGHT_F32 : DSP_WEIGHT_S8X8);
  }
  dsp_model_unref (model);
  g_bytes_unref (bytes);

  spec.s8x8_everywhere = TRUE;
  data = g_bytes_unref_to_data (model_helper_build (&spec), &size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "not the features");
  g_free (data);

  spec.s8x8_everywhere = FALSE;
  spec.layers[0].activation = DSP_ACTIVATION_RELU;
  data = g_bytes_unref_to_data (model_helper_build (&spec), &size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "layer 0's relu outputs");
  g_free (data);

  spec.layers[0].activation = DSP_ACTIVATION_LINEAR;
  data = g_bytes_unref_to_data (model_helper_build (&spec), &size);
  assert_refused (data, size, DSP_ERROR_CORRUPT, "layer 0's linear outputs");
  g_free (data);
}
END_TEST

/* ---- truncation and hostile sizes ------------------------------------ */

/* Every truncation, as is and with file_size and checksum repaired so the
 * structural checks see it; each in an exact-size copy, so an over-read
 * shows under valgrind. */
START_TEST (test_truncations)
{
  GBytes *bytes
      = model_helper_random_model (_i ? DSP_WEIGHT_S8 : DSP_WEIGHT_F32, 6);
  gsize size, len, k;
  const guint8 *data = g_bytes_get_data (bytes, &size);
  GRand *rand = g_rand_new_with_seed (11);

  for (len = 0; len < size; len++) {
    guint8 *copy = g_memdup2 (data, len);

    assert_refused (copy, len, DSP_ERROR_CORRUPT, NULL);
    g_free (copy);
  }
  for (k = 0; k < 400; k++) {
    guint8 *copy;

    len = k < 200 ? DSP_MODEL_HEADER_SIZE + k * 3
                  : (gsize) g_rand_int_range (rand, 12, size - 1);
    copy = g_memdup2 (data, len);
    model_helper_fix_size_and_checksum (copy, len);
    assert_refused (copy, len, -1, NULL);
    g_free (copy);
  }
  /* trailing garbage */
  {
    guint8 *copy = g_malloc0 (size + 16);

    memcpy (copy, data, size);
    assert_refused (copy, size + 16, DSP_ERROR_CORRUPT, "file_size");
    g_free (copy);
  }
  g_rand_free (rand);
  g_bytes_unref (bytes);
}
END_TEST

static gboolean
running_under_valgrind (void)
{
  const gchar *preload = g_getenv ("LD_PRELOAD");

  return preload != NULL && strstr (preload, "vgpreload") != NULL;
}

/* A layer table claiming the largest sizes the format allows (16 layers of
 * 1024, 25 MiB of weights each) in a file of a few KiB is refused before
 * any allocation that depends on those sizes: with the address space
 * limited to 64 MiB above what is in use, it fails on the offsets. */
START_TEST (test_huge_claims)
{
  GBytes *bytes = model_helper_random_model (DSP_WEIGHT_F32, 8);
  gsize size, table, i;
  guint8 *data = g_bytes_unref_to_data (bytes, &size);
  struct rlimit old_limit, limit;
  gboolean limited = FALSE;
  gchar *statm = NULL;

  table = model_helper_layer_record (data, 0);
  ck_assert_uint_gt (size, table + 16 * DSP_MODEL_LAYER_RECORD_SIZE);
  model_helper_put_u32 (data, 32, 16);
  for (i = 0; i < 16; i++) {
    gsize r = table + i * DSP_MODEL_LAYER_RECORD_SIZE;
    guint32 n_in = i == 0 ? 36 : 1024;

    model_helper_put_u32 (data, r, i == 0 ? DSP_LAYER_DENSE : DSP_LAYER_GRU);
    model_helper_put_u32 (data, r + 4, i);
    model_helper_put_u32 (data, r + 8, n_in);
    model_helper_put_u32 (data, r + 12, 1024);
    model_helper_put_u32 (data, r + 16, i == 0 ? DSP_ACTIVATION_TANH : 0);
    model_helper_put_u32 (data, r + 20, DSP_WEIGHT_F32);
    model_helper_put_u32 (data, r + 24, table + 16 * 48);
    model_helper_put_u32 (data, r + 28,
        i == 0 ? 36 * 1024 * 4 : 3 * 1024 * 2048 * 4);
    model_helper_put_u32 (data, r + 32, table + 16 * 48);
    model_helper_put_u32 (data, r + 36, i == 0 ? 1024 * 4 : 6 * 1024 * 4);
    model_helper_put_u32 (data, r + 40, 0);
    model_helper_put_u32 (data, r + 44, 0);
  }
  model_helper_fix_size_and_checksum (data, size);

  if (!running_under_valgrind ()
      && g_file_get_contents ("/proc/self/statm", &statm, NULL, NULL)
      && getrlimit (RLIMIT_AS, &old_limit) == 0) {
    guint64 pages = g_ascii_strtoull (statm, NULL, 10);

    limit = old_limit;
    limit.rlim_cur = pages * sysconf (_SC_PAGESIZE) + (64u << 20);
    if (old_limit.rlim_cur == RLIM_INFINITY
        || limit.rlim_cur < old_limit.rlim_cur)
      limited = setrlimit (RLIMIT_AS, &limit) == 0;
  }
  g_free (statm);

  assert_refused (data, size, DSP_ERROR_CORRUPT, "outside the data section");

  if (limited)
    setrlimit (RLIMIT_AS, &old_limit);
  g_free (data);
}
END_TEST

/* ---- files, lifetime, threads ---------------------------------------- */

START_TEST (test_file_errors)
{
  GError *error = NULL;
  gchar *dir = model_helper_data_path ("");
  gchar *tmp = NULL;
  gint fd;
  GBytes *bytes = model_helper_random_model (DSP_WEIGHT_F32, 9);
  gsize size;
  guint8 *data = g_bytes_unref_to_data (bytes, &size);
  DspModel *model;

  ck_assert_ptr_null (dsp_model_new_from_file ("/nonexistent/m.rnnm", &error));
  ck_assert (g_error_matches (error, G_FILE_ERROR, G_FILE_ERROR_NOENT));
  g_clear_error (&error);

  ck_assert_ptr_null (dsp_model_new_from_file (dir, &error));
  ck_assert (error != NULL && error->domain == G_FILE_ERROR);
  g_clear_error (&error);

  fd = g_file_open_tmp ("test_model_XXXXXX.rnnm", &tmp, NULL);
  ck_assert_int_ge (fd, 0);
  close (fd);
  ck_assert (g_file_set_contents (tmp, (const gchar *) data, size, NULL));
  model = dsp_model_new_from_file (tmp, &error);
  ck_assert_ptr_nonnull (model);
  dsp_model_unref (model);

  data[0] = 'X';
  ck_assert (g_file_set_contents (tmp, (const gchar *) data, size, NULL));
  ck_assert_ptr_null (dsp_model_new_from_file (tmp, &error));
  ck_assert (g_error_matches (error, DSP_ERROR, DSP_ERROR_CORRUPT));
  ck_assert (strstr (error->message, tmp) != NULL);
  ck_assert (strstr (error->message, "magic") != NULL);
  g_clear_error (&error);

  g_unlink (tmp);
  g_free (tmp);
  g_free (data);
  g_free (dir);
}
END_TEST

/* A model stays usable while any reference is held, whoever made it. */
START_TEST (test_ref_unref)
{
  GBytes *bytes = model_helper_random_model (DSP_WEIGHT_S8, 10);
  DspModel *model = dsp_model_new_from_bytes (bytes, NULL);
  DspModel *other;
  gfloat features[DSP_MAX_FEATURES] = { 0 }, gains[DSP_MAX_BANDS], vad[1];
  gfloat *hidden, *scratch;

  g_bytes_unref (bytes); /* the model keeps no reference to it */
  ck_assert_ptr_nonnull (model);
  other = dsp_model_ref (model);
  ck_assert_ptr_eq (other, model);
  dsp_model_unref (model);

  hidden = g_new0 (gfloat, dsp_model_state_size (other, 1));
  scratch = g_new0 (gfloat, dsp_model_scratch_size (other, 1));
  dsp_model_forward (other, features, hidden, 1, gains, vad, scratch);
  ck_assert (vad[0] > 0.0f && vad[0] < 1.0f);
  dsp_model_unref (other);
  dsp_model_unref (NULL);
  g_free (hidden);
  g_free (scratch);
}
END_TEST

#define THREAD_FRAMES 200
#define THREAD_BATCH 2

typedef struct
{
  const DspModel *model;
  const gfloat *features; /* THREAD_FRAMES x batch x n_features */
  gfloat *gains;          /* THREAD_FRAMES x batch x n_bands */
  gfloat *vad;            /* THREAD_FRAMES x batch */
  gfloat *hidden;
} Run;

static gpointer
run_frames (gpointer user_data)
{
  Run *run = user_data;
  guint n_feat = dsp_model_get_n_features (run->model);
  guint n_bands = dsp_model_get_frame_config (run->model)->n_bands;
  gfloat *scratch
      = g_new (gfloat, dsp_model_scratch_size (run->model, THREAD_BATCH));
  guint t;

  for (t = 0; t < THREAD_FRAMES; t++) {
    dsp_model_forward (run->model, run->features + t * THREAD_BATCH * n_feat,
        run->hidden, THREAD_BATCH, run->gains + t * THREAD_BATCH * n_bands,
        run->vad + t * THREAD_BATCH, scratch);
  }
  g_free (scratch);
  return NULL;
}

static void
run_init (Run *run, const DspModel *model, const gfloat *features)
{
  run->model = model;
  run->features = features;
  run->gains = g_new (gfloat,
      THREAD_FRAMES * THREAD_BATCH
          * dsp_model_get_frame_config (model)->n_bands);
  run->vad = g_new (gfloat, THREAD_FRAMES * THREAD_BATCH);
  run->hidden = g_new0 (gfloat, dsp_model_state_size (model, THREAD_BATCH));
}

static void
run_clear (Run *run)
{
  g_free (run->gains);
  g_free (run->vad);
  g_free (run->hidden);
}

static void
assert_runs_equal (const Run *a, const Run *b)
{
  gsize n_bands = dsp_model_get_frame_config (a->model)->n_bands;

  ck_assert_mem_eq (a->gains, b->gains,
      THREAD_FRAMES * THREAD_BATCH * n_bands * sizeof (gfloat));
  ck_assert_mem_eq (a->vad, b->vad,
      THREAD_FRAMES * THREAD_BATCH * sizeof (gfloat));
  ck_assert_mem_eq (a->hidden, b->hidden,
      dsp_model_state_size (a->model, THREAD_BATCH) * sizeof (gfloat));
}

/* Two threads on one model, each with its own state and scratch, give the
 * same bits as runs one after the other, for every weight type. */
START_TEST (test_threads_bit_identical)
{
  GBytes *bytes = model_helper_random_model (weight_types[_i], 12);
  DspModel *model = dsp_model_new_from_bytes (bytes, NULL);
  guint n_feat = dsp_model_get_n_features (model);
  gsize n = (gsize) THREAD_FRAMES * THREAD_BATCH * n_feat, i;
  gfloat *feat_a = g_new (gfloat, n), *feat_b = g_new (gfloat, n);
  GRand *rand = g_rand_new_with_seed (13);
  Run seq_a, seq_b, par_a, par_b;
  GThread *ta, *tb;

  for (i = 0; i < n; i++) {
    feat_a[i] = (gfloat) g_rand_double_range (rand, -2.0, 2.0);
    feat_b[i] = (gfloat) g_rand_double_range (rand, -2.0, 2.0);
  }
  run_init (&seq_a, model, feat_a);
  run_init (&seq_b, model, feat_b);
  run_init (&par_a, model, feat_a);
  run_init (&par_b, model, feat_b);

  run_frames (&seq_a);
  run_frames (&seq_b);
  ta = g_thread_new ("model-a", run_frames, &par_a);
  tb = g_thread_new ("model-b", run_frames, &par_b);
  g_thread_join (ta);
  g_thread_join (tb);

  assert_runs_equal (&seq_a, &par_a);
  assert_runs_equal (&seq_b, &par_b);

  run_clear (&seq_a);
  run_clear (&seq_b);
  run_clear (&par_a);
  run_clear (&par_b);
  g_rand_free (rand);
  g_free (feat_a);
  g_free (feat_b);
  dsp_model_unref (model);
  g_bytes_unref (bytes);
}
END_TEST

static Suite *
model_suite (void)
{
  Suite *s = suite_create ("model");
  TCase *tc;

  tc = tcase_create ("reference");
  tcase_add_test (tc, test_loader_packs_for_vector_kernels);
  tcase_add_test (tc, test_forward_f32_matches_reference);
  tcase_add_test (tc, test_forward_s8_matches_reference);
  tcase_add_test (tc, test_forward_s8_close_to_float);
  tcase_add_test (tc, test_forward_s8x8_matches_reference);
  tcase_add_test (tc, test_forward_s8x8_close_to_float_reference);
  tcase_add_loop_test (tc, test_forward_random_models, 0,
      G_N_ELEMENTS (weight_types));
  tcase_add_test (tc, test_forward_s8x8_close_to_float);
  suite_add_tcase (s, tc);

  tc = tcase_create ("accessors");
  tcase_add_test (tc, test_accessors);
  tcase_add_test (tc, test_model_id);
  tcase_add_test (tc, test_speech_protection_field);
  tcase_add_test (tc, test_bin_head);
  tcase_add_loop_test (tc, test_lookahead_model, 0, DSP_MAX_LOOKAHEAD);
  suite_add_tcase (s, tc);

  tc = tcase_create ("corrupt");
  tcase_add_loop_test (tc, test_corrupt_field, 0, G_N_ELEMENTS (corruptions));
  tcase_add_test (tc, test_corrupt_payload_bit);
  tcase_add_test (tc, test_corrupt_no_gru);
  tcase_add_test (tc, test_s8x8_needs_bounded_inputs);
  suite_add_tcase (s, tc);

  tc = tcase_create ("truncation");
  tcase_add_loop_test (tc, test_truncations, 0, 2);
  tcase_add_test (tc, test_huge_claims);
  suite_add_tcase (s, tc);

  tc = tcase_create ("lifetime");
  tcase_add_test (tc, test_file_errors);
  tcase_add_test (tc, test_ref_unref);
  suite_add_tcase (s, tc);

  tc = tcase_create ("threads");
  tcase_add_loop_test (tc, test_threads_bit_identical, 0,
      G_N_ELEMENTS (weight_types));
  suite_add_tcase (s, tc);

  return s;
}

RNN_CHECK_MAIN (model_suite);
