/* rnndenoise — unit tests: dense layers and the GRU cell
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The expected values come from tests/ref/nnet_ref.py (numpy, float64,
 * PyTorch's GRU equations), committed in tests/unit/data/nnet_ref.bin.
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "check_main.h"
#include <glib.h>

#include "dsp/dsp_dense.h"
#include "dsp/dsp_gru.h"
#include "tests/unit/model_helper.h"

#define REF_FILE "nnet_ref.bin"

/* The lone GRU and dense layer of nnet_ref.py. */
#define GRU_IN 37
#define GRU_HID 21
#define GRU_FRAMES 6
#define BATCH 2
#define DENSE_IN 29
#define DENSE_OUT 11

static gfloat *
ref_floats (const gchar *name, gsize expect)
{
  gsize n;
  gfloat *v = model_helper_ref_array (REF_FILE, name, FALSE, &n);

  ck_assert_msg (v != NULL, "reference array %s missing", name);
  ck_assert_uint_eq (n, expect);
  return v;
}

static gint8 *
ref_s8 (const gchar *name, gsize expect)
{
  gsize n;
  gint8 *v = model_helper_ref_array (REF_FILE, name, TRUE, &n);

  ck_assert_msg (v != NULL, "reference array %s missing", name);
  ck_assert_uint_eq (n, expect);
  return v;
}

static void
assert_close (const gfloat *got, const gfloat *want, gsize n, gfloat tol,
    const gchar *what)
{
  gsize i;

  for (i = 0; i < n; i++) {
    ck_assert_msg (fabsf (got[i] - want[i]) <= tol,
        "%s[%" G_GSIZE_FORMAT "]: got %.7f, want %.7f (tolerance %g)", what, i,
        got[i], want[i], tol);
  }
}

/* Runs the reference GRU sequence with float or int8 weights and compares
 * every step with the expected hidden states. */
static void
run_gru (DspWeightType type, const gchar *expected, gfloat tol)
{
  gfloat *w_ih = ref_floats ("gru_w_ih", 3 * GRU_HID * GRU_IN);
  gfloat *w_hh = ref_floats ("gru_w_hh", 3 * GRU_HID * GRU_HID);
  gfloat *b_ih = ref_floats ("gru_b_ih", 3 * GRU_HID);
  gfloat *b_hh = ref_floats ("gru_b_hh", 3 * GRU_HID);
  gint8 *q_ih = ref_s8 ("gru_q_ih", 3 * GRU_HID * GRU_IN);
  gint8 *q_hh = ref_s8 ("gru_q_hh", 3 * GRU_HID * GRU_HID);
  gfloat *s_ih = ref_floats ("gru_s_ih", 3 * GRU_HID);
  gfloat *s_hh = ref_floats ("gru_s_hh", 3 * GRU_HID);
  gfloat *x = ref_floats ("gru_x", GRU_FRAMES * BATCH * GRU_IN);
  gfloat *h = ref_floats ("gru_h0", BATCH * GRU_HID);
  gfloat *want = ref_floats (expected, GRU_FRAMES * BATCH * GRU_HID);
  gfloat scratch[6 * GRU_HID];
  DspGruWeights w = { 0 };
  DspCell *cell;
  guint t;

  w.input_size = GRU_IN;
  w.hidden_size = GRU_HID;
  w.w_ih
      = (DspMatrix){ type, 3 * GRU_HID, GRU_IN, w_ih, q_ih, s_ih, NULL, FALSE };
  w.w_hh = (DspMatrix){ type, 3 * GRU_HID, GRU_HID, w_hh, q_hh, s_hh, NULL,
    FALSE };
  w.b_ih = b_ih;
  w.b_hh = b_hh;
  cell = dsp_gru_new (&w);
  ck_assert_ptr_nonnull (cell);
  ck_assert_int_eq (cell->klass->kind, RNN_STATE_CELL_GRU);
  ck_assert_uint_eq (cell->input_size, GRU_IN);
  ck_assert_uint_eq (cell->hidden_size, GRU_HID);
  ck_assert_uint_eq (cell->scratch_size, G_N_ELEMENTS (scratch));

  for (t = 0; t < GRU_FRAMES; t++) {
    dsp_cell_step (cell, x + t * BATCH * GRU_IN, h, BATCH, scratch);
    assert_close (h, want + t * BATCH * GRU_HID, BATCH * GRU_HID, tol,
        expected);
  }

  dsp_cell_free (cell);
  g_free (w_ih);
  g_free (w_hh);
  g_free (b_ih);
  g_free (b_hh);
  g_free (q_ih);
  g_free (q_hh);
  g_free (s_ih);
  g_free (s_hh);
  g_free (x);
  g_free (h);
  g_free (want);
}

START_TEST (test_gru_f32_matches_reference)
{
  run_gru (DSP_WEIGHT_F32, "gru_h_f32", MODEL_HELPER_REF_TOLERANCE);
}
END_TEST

START_TEST (test_gru_s8_matches_reference)
{
  run_gru (DSP_WEIGHT_S8, "gru_h_s8", MODEL_HELPER_REF_TOLERANCE);
}
END_TEST

/* int8 weights stay within the documented tolerance of the float GRU. */
START_TEST (test_gru_s8_close_to_float)
{
  run_gru (DSP_WEIGHT_S8, "gru_h_f32", MODEL_HELPER_INT8_TOLERANCE);
}
END_TEST

/* Rows of a batch are independent: row 1 alone gives the same bits. */
START_TEST (test_gru_batch_rows_independent)
{
  gfloat *w_ih = ref_floats ("gru_w_ih", 3 * GRU_HID * GRU_IN);
  gfloat *w_hh = ref_floats ("gru_w_hh", 3 * GRU_HID * GRU_HID);
  gfloat *b_ih = ref_floats ("gru_b_ih", 3 * GRU_HID);
  gfloat *b_hh = ref_floats ("gru_b_hh", 3 * GRU_HID);
  gfloat *x = ref_floats ("gru_x", GRU_FRAMES * BATCH * GRU_IN);
  gfloat *h2 = ref_floats ("gru_h0", BATCH * GRU_HID);
  gfloat h1[GRU_HID], scratch[6 * GRU_HID];
  DspGruWeights w = { 0 };
  DspCell *cell;
  guint t;

  w.input_size = GRU_IN;
  w.hidden_size = GRU_HID;
  w.w_ih = (DspMatrix){ DSP_WEIGHT_F32, 3 * GRU_HID, GRU_IN, w_ih, NULL, NULL,
    NULL, FALSE };
  w.w_hh = (DspMatrix){ DSP_WEIGHT_F32, 3 * GRU_HID, GRU_HID, w_hh, NULL, NULL,
    NULL, FALSE };
  w.b_ih = b_ih;
  w.b_hh = b_hh;
  cell = dsp_gru_new (&w);
  memcpy (h1, h2 + GRU_HID, sizeof (h1));
  for (t = 0; t < GRU_FRAMES; t++) {
    dsp_cell_step (cell, x + t * BATCH * GRU_IN, h2, BATCH, scratch);
    dsp_cell_step (cell, x + (t * BATCH + 1) * GRU_IN, h1, 1, scratch);
    ck_assert_mem_eq (h1, h2 + GRU_HID, sizeof (h1));
  }
  dsp_cell_free (cell);
  g_free (w_ih);
  g_free (w_hh);
  g_free (b_ih);
  g_free (b_hh);
  g_free (x);
  g_free (h2);
}
END_TEST

/* The GRU update gives the same bits with its AVX2 path (eight units at a
 * time) as with the portable one (four, then one), for hidden sizes 1..40
 * (every mix of groups of eight, four and single units), with large gate
 * inputs that reach the activations' clamps. */
START_TEST (test_gru_update_kernels_identical)
{
  GRand *rand = g_rand_new_with_seed (31);
  gfloat w_ih[3 * 40 * 5], w_hh[3 * 40 * 40], b_ih[3 * 40], b_hh[3 * 40];
  gfloat x[5], h_avx[40], h_portable[40], scratch[6 * 40];
  guint hid, j, t;

  for (j = 0; j < G_N_ELEMENTS (w_ih); j++)
    w_ih[j] = (gfloat) g_rand_double_range (rand, -4.0, 4.0);
  for (j = 0; j < G_N_ELEMENTS (w_hh); j++)
    w_hh[j] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
  for (j = 0; j < 3 * 40; j++) {
    b_ih[j] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
    b_hh[j] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
  }
  for (hid = 1; hid <= 40; hid++) {
    DspGruWeights w = { 0 };
    DspCell *cell;

    w.input_size = 5;
    w.hidden_size = hid;
    w.w_ih = (DspMatrix){ DSP_WEIGHT_F32, 3 * hid, 5, w_ih, NULL, NULL, NULL,
      FALSE };
    w.w_hh = (DspMatrix){ DSP_WEIGHT_F32, 3 * hid, hid, w_hh, NULL, NULL, NULL,
      FALSE };
    w.b_ih = b_ih;
    w.b_hh = b_hh;
    cell = dsp_gru_new (&w);
    memset (h_avx, 0, sizeof (h_avx));
    memset (h_portable, 0, sizeof (h_portable));
    for (t = 0; t < 6; t++) {
      for (j = 0; j < 5; j++)
        x[j] = (gfloat) g_rand_double_range (rand, -3.0, 3.0);
      dsp_cell_step (cell, x, h_avx, 1, scratch);
      dsp_dense_set_kernel_limit (DSP_KERNELS_PORTABLE);
      dsp_cell_step (cell, x, h_portable, 1, scratch);
      dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);
      ck_assert_msg (memcmp (h_avx, h_portable, hid * sizeof (gfloat)) == 0,
          "hidden size %u, step %u", hid, t);
    }
    dsp_cell_free (cell);
  }
  g_rand_free (rand);
}
END_TEST

static const struct
{
  DspActivation activation;
  const gchar *name;
} activations[] = {
  { DSP_ACTIVATION_LINEAR, "linear" },
  { DSP_ACTIVATION_TANH, "tanh" },
  { DSP_ACTIVATION_SIGMOID, "sigmoid" },
  { DSP_ACTIVATION_RELU, "relu" },
};

/* One loop iteration per activation, float and int8 weights. */
START_TEST (test_dense_matches_reference)
{
  gfloat *w = ref_floats ("dense_w", DENSE_OUT * DENSE_IN);
  gfloat *b = ref_floats ("dense_b", DENSE_OUT);
  gfloat *x = ref_floats ("dense_x", BATCH * DENSE_IN);
  gint8 *q = ref_s8 ("dense_q", DENSE_OUT * DENSE_IN);
  gfloat *s = ref_floats ("dense_s", DENSE_OUT);
  gchar *name = g_strdup_printf ("dense_y_%s", activations[_i].name);
  gchar *name_s8 = g_strdup_printf ("dense_y_s8_%s", activations[_i].name);
  gfloat *want = ref_floats (name, BATCH * DENSE_OUT);
  gfloat *want_s8 = ref_floats (name_s8, BATCH * DENSE_OUT);
  gfloat y[BATCH * DENSE_OUT];
  DspDense dense = { 0 };

  ck_assert_str_eq (dsp_activation_name (activations[_i].activation),
      activations[_i].name);
  dense.input_size = DENSE_IN;
  dense.output_size = DENSE_OUT;
  dense.activation = activations[_i].activation;
  dense.bias = b;
  dense.weights = (DspMatrix){ DSP_WEIGHT_F32, DENSE_OUT, DENSE_IN, w, NULL,
    NULL, NULL, FALSE };
  dsp_dense_forward (&dense, x, y, BATCH);
  assert_close (y, want, BATCH * DENSE_OUT, MODEL_HELPER_REF_TOLERANCE, name);

  dense.weights = (DspMatrix){ DSP_WEIGHT_S8, DENSE_OUT, DENSE_IN, NULL, q, s,
    NULL, FALSE };
  dsp_dense_forward (&dense, x, y, BATCH);
  assert_close (y, want_s8, BATCH * DENSE_OUT, MODEL_HELPER_REF_TOLERANCE,
      name_s8);

  g_free (w);
  g_free (b);
  g_free (x);
  g_free (q);
  g_free (s);
  g_free (want);
  g_free (want_s8);
  g_free (name);
  g_free (name_s8);
}
END_TEST

/* Dot products of every length 1..40 (all tails of the 8-lane loop) and
 * matrices without bias. */
START_TEST (test_gemv_lengths)
{
  gfloat w[2 * 40], x[40], y[2];
  gint8 q[2 * 40];
  gfloat scale[2] = { 0.5f, 0.25f };
  guint n, j;

  for (n = 1; n <= 40; n++) {
    DspMatrix m = { DSP_WEIGHT_F32, 2, n, w, NULL, NULL, NULL, FALSE };
    gdouble want0 = 0.0, want1 = 0.0;

    for (j = 0; j < 2 * n; j++) {
      w[j] = (gfloat) ((gint) (j % 7) - 3);
      q[j] = (gint8) ((gint) (j % 7) - 3);
    }
    for (j = 0; j < n; j++) {
      x[j] = 0.5f + 0.25f * j;
      want0 += w[j] * x[j];
      want1 += w[n + j] * x[j];
    }
    dsp_matrix_gemv (&m, x, NULL, y);
    ck_assert_float_eq_tol (y[0], want0, 1e-4);
    ck_assert_float_eq_tol (y[1], want1, 1e-4);
    m = (DspMatrix){ DSP_WEIGHT_S8, 2, n, NULL, q, scale, NULL, FALSE };
    dsp_matrix_gemv (&m, x, NULL, y);
    ck_assert_float_eq_tol (y[0], want0 * 0.5, 1e-4);
    ck_assert_float_eq_tol (y[1], want1 * 0.25, 1e-4);
  }
}
END_TEST

START_TEST (test_activation_limits)
{
  gfloat v[6] = { -1000.0f, -20.0f, 0.0f, 20.0f, 1000.0f, NAN };
  gfloat r[5] = { -1000.0f, -0.5f, 0.0f, 0.5f, 1000.0f };
  guint i;

  dsp_activation_apply (DSP_ACTIVATION_SIGMOID, v, 5);
  ck_assert_float_eq (v[0], 0.0f);
  ck_assert_float_eq_tol (v[2], 0.5f, 1e-7);
  ck_assert_float_eq (v[4], 1.0f);
  for (i = 0; i < 5; i++)
    ck_assert (v[i] >= 0.0f && v[i] <= 1.0f);
  v[0] = -1000.0f;
  v[1] = 1000.0f;
  dsp_activation_apply (DSP_ACTIVATION_TANH, v, 2);
  ck_assert_float_eq (v[0], -1.0f);
  ck_assert_float_eq (v[1], 1.0f);
  dsp_activation_apply (DSP_ACTIVATION_RELU, r, 5);
  ck_assert_float_eq (r[0], 0.0f);
  ck_assert_float_eq (r[1], 0.0f);
  ck_assert_float_eq (r[3], 0.5f);
  ck_assert_float_eq (r[4], 1000.0f);
  dsp_activation_apply (DSP_ACTIVATION_LINEAR, r, 5);
  ck_assert_float_eq (r[4], 1000.0f);
  ck_assert_str_eq (dsp_weight_type_name (DSP_WEIGHT_F32), "f32");
  ck_assert_str_eq (dsp_weight_type_name (DSP_WEIGHT_S8), "int8");
  ck_assert_str_eq (dsp_weight_type_name (DSP_WEIGHT_S8X8), "int8x8");
  ck_assert_str_eq (dsp_activation_name (99), "unknown");
}
END_TEST

/* Packs an int8x8 @m for the vector kernels where this CPU has them;
 * returns the packed weights to free after @m's last use (NULL
 * elsewhere). */
static guint8 *
pack (DspMatrix *m)
{
  gsize size = dsp_matrix_packed_size (m->type, m->rows, m->cols);
  guint8 *packed = size > 0 ? g_malloc (size) : NULL;

  if (packed != NULL)
    dsp_matrix_pack (m, packed);
  return packed;
}

/* @m times @x plus @bias through each kernel family this CPU has (VNNI,
 * AVX2, portable): the same bits. */
static void
assert_kernels_agree (const DspMatrix *m, const gfloat *x, const gfloat *bias)
{
  gfloat want[64] = { 0 }, got[64] = { 0 };
  gint limit;

  ck_assert_uint_le (m->rows, G_N_ELEMENTS (want));
  dsp_dense_set_kernel_limit (DSP_KERNELS_PORTABLE);
  dsp_matrix_gemv (m, x, bias, want);
  for (limit = DSP_KERNELS_VNNI; limit > DSP_KERNELS_PORTABLE; limit--) {
    dsp_dense_set_kernel_limit (limit);
    dsp_matrix_gemv (m, x, bias, got);
    ck_assert_msg (memcmp (want, got, sizeof (want)) == 0, "%s, %u x %u, %s",
        dsp_weight_type_name (m->type), m->rows, m->cols,
        dsp_kernels_name (dsp_dense_get_kernels ()));
  }
  dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);
}

/* The VNNI, AVX2 and portable kernels give the same bits, for float, int8
 * and int8x8 weights, packed or not, at every length (tails included), on
 * row counts that fill the packed kernels' tiles of four blocks of eight
 * rows (64), leave the last block short (63), the last tile short (40) or
 * both (17); the row kernels' groups of four rows and the rows after them
 * too. The int8x8 weights have no -128, so the AVX2 kernel reads them
 * packed (test_s8x8_exact() has matrices with). */
START_TEST (test_kernels_identical)
{
  static const guint row_counts[] = { 17, 40, 63, 64 };
  GRand *rand = g_rand_new_with_seed (99);
  gfloat w[64 * 67], x[67], bias[64], scale[64];
  gint8 q[64 * 67];
  guint cols, i, k;

  for (i = 0; i < G_N_ELEMENTS (w); i++) {
    w[i] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
    q[i] = (gint8) g_rand_int_range (rand, -127, 128);
  }
  for (i = 0; i < 67; i++)
    x[i] = (gfloat) g_rand_double_range (rand, -3.0, 3.0);
  for (i = 0; i < 64; i++) {
    bias[i] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
    scale[i] = (gfloat) g_rand_double_range (rand, 0.001, 0.02);
  }
  for (cols = 1; cols <= 67; cols++) {
    for (k = 0; k < G_N_ELEMENTS (row_counts); k++) {
      guint rows = row_counts[k];
      DspMatrix f32
          = { DSP_WEIGHT_F32, rows, cols, w, NULL, NULL, NULL, FALSE };
      DspMatrix s8 = { DSP_WEIGHT_S8, rows, cols, NULL, q, scale, NULL, FALSE };
      DspMatrix s8x8
          = { DSP_WEIGHT_S8X8, rows, cols, NULL, q, scale, NULL, FALSE };
      guint8 *packed;

      assert_kernels_agree (&f32, x, bias);
      assert_kernels_agree (&s8, x, bias);
      assert_kernels_agree (&s8x8, x, bias);
      packed = pack (&s8x8);
      ck_assert (packed == NULL || s8x8.packed_sign_safe);
      assert_kernels_agree (&s8x8, x, bias);
      g_free (packed);
    }
  }
  g_rand_free (rand);
}
END_TEST

/* An int8x8 input as docs/model-format.md defines it, computed here with
 * libm: x * 127 clamped to +-127, NaN as 0, rounded half to even. */
static gint32
s8x8_input (gfloat x)
{
  gfloat v = x * 127.0f;

  if (isnan (v))
    return 0;
  return (gint32) rintf (CLAMP (v, -127.0f, 127.0f));
}

/* Whether one of @n weights is -128. */
static gboolean
holds_s8_min (const gint8 *q, guint n)
{
  guint i;

  for (i = 0; i < n; i++)
    if (q[i] == G_MININT8)
      return TRUE;
  return FALSE;
}

/* Checks every row of @q (@rows x @cols, row-major) times @x against the
 * int8x8 definition: the exact integer sum of the weights times the
 * quantised inputs, scaled as float (sum) * scale * (1 / 127). */
static void
assert_s8x8_rows_exact (const DspMatrix *m, const gfloat *x)
{
  gfloat got[64];
  guint r, j;

  ck_assert_uint_le (m->rows, G_N_ELEMENTS (got));
  dsp_matrix_gemv (m, x, NULL, got);
  for (r = 0; r < m->rows; r++) {
    gint64 sum = 0;
    gfloat want;

    for (j = 0; j < m->cols; j++)
      sum += (gint64) m->s8[r * m->cols + j] * s8x8_input (x[j]);
    want = (gfloat) sum * m->scale[r] * (1.0f / 127.0f);
    ck_assert_msg (memcmp (&got[r], &want, 4) == 0,
        "%u x %u, row %u, %s: %.9g, want %.9g", m->rows, m->cols, r,
        dsp_kernels_name (dsp_dense_get_kernels ()), got[r], want);
  }
}

/* int8x8 rows are exact integer sums of the weights times the quantised
 * inputs, scaled as float (sum) * scale * (1 / 127): checked bit for bit
 * against that definition, with inputs beyond +-1, infinities, NaN and
 * values half way between two steps, at lengths 1..67 (the row kernel's
 * sixteen columns, the packed kernels' four and every tail), on 17, 40,
 * 63 and 64 rows, with every kernel family the CPU has, packed and not:
 * on weights with -128 among them (which the AVX2 kernel reads as rows)
 * and on the same weights with -127 instead (which it reads packed). */
START_TEST (test_s8x8_exact)
{
  static const gfloat special[] = { NAN, INFINITY, -INFINITY, 1.0f, -1.0f, 1.5f,
    -2.0f, 0.5f / 127.0f, 1.5f / 127.0f, -2.5f / 127.0f, 0.0f, -0.0f };
  static const guint row_counts[] = { 17, 40, 63, 64 };
  GRand *rand = g_rand_new_with_seed (17);
  gfloat x[67], scale[64];
  gint8 q[64 * 67];
  guint cols, k, j, pass;
  gint kernels;

  for (j = 0; j < G_N_ELEMENTS (q); j++)
    q[j] = (gint8) g_rand_int_range (rand, -128, 128);
  for (j = 0; j < 67; j++)
    x[j] = j < G_N_ELEMENTS (special)
        ? special[j]
        : (gfloat) g_rand_double_range (rand, -1.2, 1.2);
  for (j = 0; j < 64; j++)
    scale[j] = (gfloat) g_rand_double_range (rand, 0.001, 0.02);
  for (pass = 0; pass < 2; pass++) {
    if (pass == 1)
      for (j = 0; j < G_N_ELEMENTS (q); j++)
        q[j] = MAX (q[j], -127);
    for (kernels = DSP_KERNELS_PORTABLE; kernels <= DSP_KERNELS_VNNI;
         kernels++) {
      dsp_dense_set_kernel_limit (kernels);
      for (cols = 1; cols <= 67; cols++) {
        for (k = 0; k < G_N_ELEMENTS (row_counts); k++) {
          DspMatrix m = { DSP_WEIGHT_S8X8, row_counts[k], cols, NULL, q, scale,
            NULL, FALSE };
          guint8 *packed;

          assert_s8x8_rows_exact (&m, x);
          packed = pack (&m);
          ck_assert (packed == NULL
              || m.packed_sign_safe == !holds_s8_min (q, m.rows * cols));
          assert_s8x8_rows_exact (&m, x);
          g_free (packed);
        }
      }
    }
  }
  dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);
  g_rand_free (rand);
}
END_TEST

/* An int8x8 row's output for its integer sum at scale 1, as
 * docs/model-format.md defines it. */
static gfloat
s8x8_row_output (gint32 sum)
{
  return (gfloat) sum * 1.0f * (1.0f / 127.0f);
}

/* The largest int8x8 sums: DSP_MATRIX_MAX_S8X8_COLS columns of weights at
 * @low or 127 times inputs at +-1 (+-127 once quantised), the signs chosen
 * for the largest sums of either sign, on every kernel family the CPU has,
 * packed and not: exact (below 2^24, so the float is the integer). */
static void
assert_s8x8_extremes (gint8 low)
{
  static gint8 q[5 * DSP_MATRIX_MAX_S8X8_COLS];
  static gfloat x[DSP_MATRIX_MAX_S8X8_COLS];
  const gint8 row_weight[5] = { low, 127, low, 127, low };
  gfloat scale[5] = { 1.0f, 1.0f, 1.0f, 1.0f, 1.0f }, got[5];
  DspMatrix m = { DSP_WEIGHT_S8X8, 5, DSP_MATRIX_MAX_S8X8_COLS, NULL, q, scale,
    NULL, FALSE };
  guint8 *packed = NULL;
  gint kernels;
  guint r, j, pass;

  for (r = 0; r < 5; r++)
    memset (q + r * DSP_MATRIX_MAX_S8X8_COLS, (guint8) row_weight[r],
        DSP_MATRIX_MAX_S8X8_COLS);
  for (pass = 0; pass < 2; pass++) {
    if (pass == 1)
      packed = pack (&m);
    for (kernels = DSP_KERNELS_PORTABLE; kernels <= DSP_KERNELS_VNNI;
         kernels++) {
      dsp_dense_set_kernel_limit (kernels);
      for (j = 0; j < DSP_MATRIX_MAX_S8X8_COLS; j++)
        x[j] = -1.0f;
      dsp_matrix_gemv (&m, x, NULL, got);
      for (r = 0; r < 5; r++)
        ck_assert_float_eq (got[r],
            s8x8_row_output (-127 * row_weight[r] * DSP_MATRIX_MAX_S8X8_COLS));
      for (j = 0; j < DSP_MATRIX_MAX_S8X8_COLS; j++)
        x[j] = 1.0f;
      dsp_matrix_gemv (&m, x, NULL, got);
      for (r = 0; r < 5; r++)
        ck_assert_float_eq (got[r],
            s8x8_row_output (127 * row_weight[r] * DSP_MATRIX_MAX_S8X8_COLS));
    }
  }
  dsp_dense_set_kernel_limit (DSP_KERNELS_VNNI);
  g_free (packed);
}

/* The largest sums with -128 among the weights (the VNNI kernel's inputs
 * at x + 128 times -128, the largest of its products), and with -127 at
 * most (the AVX2 kernel reads those packed, its pairs of products at
 * 2 x 127 x 127, the most its 16-bit sums may hold without saturating). */
START_TEST (test_s8x8_extremes)
{
  assert_s8x8_extremes (-128);
  assert_s8x8_extremes (-127);
}
END_TEST

/* The kernel limit caps the family that runs, the CPU's own is the
 * default, and the families have names. */
START_TEST (test_kernel_limit)
{
  DspKernels best = dsp_dense_get_kernels ();
  gint limit;

  for (limit = DSP_KERNELS_PORTABLE; limit <= DSP_KERNELS_VNNI; limit++) {
    dsp_dense_set_kernel_limit (limit);
    ck_assert_int_eq (dsp_dense_get_kernels (), MIN (limit, (gint) best));
  }
  ck_assert_int_eq (dsp_dense_get_kernels (), best);
  ck_assert_str_eq (dsp_kernels_name (DSP_KERNELS_PORTABLE), "portable");
  ck_assert_str_eq (dsp_kernels_name (DSP_KERNELS_AVX2), "avx2");
  ck_assert_str_eq (dsp_kernels_name (DSP_KERNELS_VNNI), "vnni");
  ck_assert_str_eq (dsp_kernels_name (7), "unknown");
}
END_TEST

/* dsp_tanh and dsp_sigmoid stay within their documented error. */
START_TEST (test_fast_activations_accuracy)
{
  gdouble worst_tanh = 0.0, worst_sigmoid = 0.0;
  gint i;

  for (i = -2000000; i <= 2000000; i++) {
    gfloat x = i * 6e-6f;

    worst_tanh = MAX (worst_tanh, fabs (dsp_tanh (x) - tanh (x)));
    worst_sigmoid = MAX (worst_sigmoid,
        fabs (dsp_sigmoid (x) - 1.0 / (1.0 + exp (-(gdouble) x))));
  }
  ck_assert_double_le (worst_tanh, 3.5e-7);
  ck_assert_double_le (worst_sigmoid, 2e-7);
  ck_assert_float_eq (dsp_tanh (100.0f), 1.0f);
  ck_assert_float_eq (dsp_tanh (-100.0f), -1.0f);
  ck_assert (isnan (dsp_tanh (NAN)));
}
END_TEST

/* The four-lane activations give the scalar ones' bits, lane by lane,
 * clamps, infinities and NaN included. */
START_TEST (test_vector_activations_identical)
{
  static const gfloat special[] = { 0.0f, -0.0f, 9.0f, -9.0f, 9.000001f, 18.0f,
    -18.0f, 1e30f, -1e30f, INFINITY, -INFINITY, NAN, 1e-30f, -1e-40f };
  gfloat in[4], want_tanh[4], want_sigmoid[4], got_tanh[4], got_sigmoid[4];
  guint n = 0, i, k;

  for (i = 0; i < 400000 + G_N_ELEMENTS (special); i++) {
    in[n] = i < G_N_ELEMENTS (special) ? special[i]
                                       : (gfloat) (i - 200000) * 1e-4f;
    want_tanh[n] = dsp_tanh (in[n]);
    want_sigmoid[n] = dsp_sigmoid (in[n]);
    if (++n < 4)
      continue;
    n = 0;
    dsp_vec4_store (got_tanh, dsp_tanh4 (dsp_vec4_load (in)));
    dsp_vec4_store (got_sigmoid, dsp_sigmoid4 (dsp_vec4_load (in)));
    for (k = 0; k < 4; k++) {
      ck_assert_msg (memcmp (&got_tanh[k], &want_tanh[k], 4) == 0,
          "tanh (%g): %.9g, scalar %.9g", in[k], got_tanh[k], want_tanh[k]);
      ck_assert_msg (memcmp (&got_sigmoid[k], &want_sigmoid[k], 4) == 0,
          "sigmoid (%g): %.9g, scalar %.9g", in[k], got_sigmoid[k],
          want_sigmoid[k]);
    }
  }
}
END_TEST

/* dsp_exp4 stays within 2 ulp of e^x over its range, lane by lane the
 * same whatever its neighbours, clamps outside the range (0 and infinity
 * never come out) and keeps NaN. */
START_TEST (test_exp4_accuracy)
{
  static const gfloat special[] = { 0.0f, -0.0f, 1e-30f, -1e-40f, 88.0f, -87.0f,
    89.0f, -88.0f, 1e30f, -1e30f, INFINITY, -INFINITY };
  gdouble worst = 0.0;
  gfloat in[4], out[4], alone[4];
  gint i;
  guint k;

  for (i = -1739800; i < 1759800; i += 4) {
    for (k = 0; k < 4; k++)
      in[k] = (i + (gint) k) * 5e-5f;
    dsp_vec4_store (out, dsp_exp4 (dsp_vec4_load (in)));
    for (k = 0; k < 4; k++) {
      gdouble want = exp ((gdouble) in[k]);

      worst = MAX (worst, fabs (out[k] - want) / want);
    }
  }
  ck_assert_msg (worst <= 2.0 * FLT_EPSILON, "worst relative error %g", worst);
  for (k = 0; k < G_N_ELEMENTS (special); k++) {
    gfloat x = special[k], clamped = CLAMP (x, DSP_EXP_LOW, DSP_EXP_HIGH);
    gfloat lanes[4] = { x, NAN, 1.0f, x };
    gdouble want = exp ((gdouble) clamped);

    dsp_vec4_store (out, dsp_exp4 (dsp_vec4_load (lanes)));
    ck_assert_msg (fabs (out[0] - want) <= 2.0 * FLT_EPSILON * want,
        "exp (%g): %.9g, want %.9g", x, out[0], want);
    ck_assert (isfinite (out[0]) && out[0] > 0.0f);
    ck_assert (isnan (out[1]));
    ck_assert (memcmp (&out[0], &out[3], sizeof (gfloat)) == 0);
    alone[0] = alone[1] = alone[2] = alone[3] = x;
    dsp_vec4_store (alone, dsp_exp4 (dsp_vec4_load (alone)));
    ck_assert (memcmp (&out[0], &alone[0], sizeof (gfloat)) == 0);
  }
}
END_TEST

static Suite *
nnet_suite (void)
{
  Suite *s = suite_create ("nnet");
  TCase *tc;

  tc = tcase_create ("gru");
  tcase_add_test (tc, test_gru_f32_matches_reference);
  tcase_add_test (tc, test_gru_s8_matches_reference);
  tcase_add_test (tc, test_gru_s8_close_to_float);
  tcase_add_test (tc, test_gru_batch_rows_independent);
  tcase_add_test (tc, test_gru_update_kernels_identical);
  suite_add_tcase (s, tc);

  tc = tcase_create ("dense");
  tcase_add_loop_test (tc, test_dense_matches_reference, 0,
      G_N_ELEMENTS (activations));
  tcase_add_test (tc, test_gemv_lengths);
  tcase_add_test (tc, test_kernels_identical);
  tcase_add_test (tc, test_s8x8_exact);
  tcase_add_test (tc, test_s8x8_extremes);
  tcase_add_test (tc, test_kernel_limit);
  suite_add_tcase (s, tc);

  tc = tcase_create ("activation");
  tcase_add_test (tc, test_activation_limits);
  tcase_add_test (tc, test_fast_activations_accuracy);
  tcase_add_test (tc, test_vector_activations_identical);
  tcase_add_test (tc, test_exp4_accuracy);
  suite_add_tcase (s, tc);

  return s;
}

RNN_CHECK_MAIN (nnet_suite);
