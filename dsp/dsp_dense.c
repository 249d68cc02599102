/* rnndenoise — dsp: weight matrices, activations and dense layers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The dot products keep DSP_DOT_LANES independent partial sums over
 * contiguous rows, so that gcc -O2 turns the inner loop into vector
 * instructions without -ffast-math; the partial sums are added in a fixed
 * order, so results do not depend on threads or call order.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp/dsp_dense.h"

#define DSP_DOT_LANES 8

/* x86-64 builds carry a second copy of the kernels for AVX2, chosen at run
 * time. It is built without FMA, so no multiply-add is fused: both copies
 * round exactly alike, and a stream moved between machines stays
 * bit-exact. */
#if defined(__GNUC__) && defined(__x86_64__)
#define DSP_DENSE_AVX2 1
#include <immintrin.h>
#endif

/* Eight float lanes as a GCC/clang vector: each lane accumulates every
 * eighth product, and the compiler maps it to SSE (two halves) or AVX (one
 * register). */
typedef gfloat DspLanes __attribute__ ((vector_size (DSP_DOT_LANES * 4)));

/* These vectors only travel between static functions of this file, always
 * inlined, so GCC's note that a 32-byte vector argument would be passed
 * differently with AVX enabled concerns no real call. */
#if defined(__clang__)
#pragma clang diagnostic ignored "-Wpsabi"
#elif defined(__GNUC__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

typedef DspLanes (*DspLoadS8) (const gint8 *p);

static inline __attribute__ ((always_inline)) DspLanes
load_f32 (const gfloat *p)
{
  DspLanes v;

  memcpy (&v, p, sizeof (v));
  return v;
}

static DspLanes
load_s8_portable (const gint8 *p)
{
  DspLanes v;
  guint k;

  for (k = 0; k < DSP_DOT_LANES; k++)
    v[k] = (gfloat) p[k];
  return v;
}

static inline __attribute__ ((always_inline)) gfloat
dot_lanes_sum (DspLanes acc)
{
  return ((acc[0] + acc[4]) + (acc[1] + acc[5]))
      + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

static inline __attribute__ ((always_inline)) gfloat
dot_f32 (const gfloat *restrict w, const gfloat *restrict x, gsize n)
{
  DspLanes acc = { 0 };
  gfloat tail = 0.0f;
  gsize j;

  for (j = 0; j + DSP_DOT_LANES <= n; j += DSP_DOT_LANES)
    acc += load_f32 (w + j) * load_f32 (x + j);
  for (; j < n; j++)
    tail += w[j] * x[j];
  return dot_lanes_sum (acc) + tail;
}

/* int8 weights are converted to float inside the loop and accumulated in
 * float; the row's scale is applied once to the sum. */
static inline __attribute__ ((always_inline)) gfloat
dot_s8 (const gint8 *restrict q, const gfloat *restrict x, gsize n,
    DspLoadS8 load_s8)
{
  DspLanes acc = { 0 };
  gfloat tail = 0.0f;
  gsize j;

  for (j = 0; j + DSP_DOT_LANES <= n; j += DSP_DOT_LANES)
    acc += load_s8 (q + j) * load_f32 (x + j);
  for (; j < n; j++)
    tail += (gfloat) q[j] * x[j];
  return dot_lanes_sum (acc) + tail;
}

/* int8x8 inputs are multiples of 1 / DSP_S8X8_ONE (dsp_dense.h). */
#define DSP_S8X8_ONE 127.0f

/* Adding and taking away 1.5 x 2^23 rounds a float of magnitude below 2^22
 * to the nearest integer (ties to even), with plain IEEE additions that
 * give the same result on every machine; the compiler may not fold them
 * (no -ffast-math). */
#define DSP_ROUND_MAGIC 12582912.0f

/* Four inputs as an int8x8 matrix reads them: x * 127 clamped to ±127, NaN
 * as 0, rounded. */
static inline DspVec4
quantise_input4 (DspVec4 x)
{
  DspVec4 one = dsp_vec4_splat (DSP_S8X8_ONE);
  DspVec4 magic = dsp_vec4_splat (DSP_ROUND_MAGIC);
  DspVec4 v = x * one;

  v = dsp_vec4_select (v > one, one, v);
  v = dsp_vec4_select (v < -one, -one, v);
  v = dsp_vec4_select (v == v, v, dsp_vec4_splat (0.0f));
  return (v + magic) - magic;
}

/* Four 32-bit and four 16-bit integers, the types quantise_input4()'s
 * lanes convert to (exactly: they already hold integers within ±127; two
 * steps, because GCC converts floats to 16 bits one lane at a time). */
typedef gint32 DspVec4i __attribute__ ((vector_size (4 * sizeof (gint32))));
typedef gint16 DspVec4s __attribute__ ((vector_size (4 * sizeof (gint16))));

/* Four quantised inputs as 16-bit integers. */
static inline DspVec4s
quantise_input4_s16 (DspVec4 x)
{
  return __builtin_convertvector(__builtin_convertvector(quantise_input4 (x),
                                     DspVec4i),
      DspVec4s);
}

/* Quantises the @n inputs of an int8x8 matrix once for all its rows. They
 * are stored as 16-bit integers, the width the AVX2 kernel multiplies. The
 * last n % 4 go through the same four-lane code, padded with zeros. */
static void
quantise_inputs (const gfloat *x, guint n, gint16 *q)
{
  gfloat rest[4] = { 0.0f };
  DspVec4s v;
  guint i;

  for (i = 0; i + 4 <= n; i += 4) {
    v = quantise_input4_s16 (dsp_vec4_load (x + i));
    memcpy (q + i, &v, sizeof (v));
  }
  if (i < n) {
    memcpy (rest, x + i, sizeof (gfloat) * (n - i));
    v = quantise_input4_s16 (dsp_vec4_load (rest));
    memcpy (q + i, &v, sizeof (gint16) * (n - i));
  }
}

/* Eight int8 weights, eight 16-bit inputs, eight 32-bit sums. */
typedef gint8 DspS8Lanes __attribute__ ((vector_size (8)));
typedef gint16 DspS16Lanes __attribute__ ((vector_size (16)));
typedef gint32 DspS32Lanes __attribute__ ((vector_size (32)));

/* The exact integer dot product of int8 weights and quantised inputs:
 * |sum| <= 128 x 127 x DSP_MATRIX_MAX_S8X8_COLS < 2^31. Eight lanes at a
 * time on GCC vectors (SSE2 or NEON without AVX2): each product, at most
 * 128 x 127, fits 16 bits, so it is taken there and then widened; integer
 * sums are exact, so the order of the additions does not matter. */
static inline __attribute__ ((always_inline)) gint32
dot_s8x8 (const gint8 *restrict q, const gint16 *restrict x, gsize n)
{
  DspS32Lanes acc = { 0 };
  DspS8Lanes qv;
  DspS16Lanes xv;
  gint32 sum = 0;
  gsize j;
  guint k;

  for (j = 0; j + 8 <= n; j += 8) {
    memcpy (&qv, q + j, sizeof (qv));
    memcpy (&xv, x + j, sizeof (xv));
    acc += __builtin_convertvector(__builtin_convertvector(qv, DspS16Lanes)
            * xv,
        DspS32Lanes);
  }
  for (k = 0; k < 8; k++)
    sum += acc[k];
  for (; j < n; j++)
    sum += (gint32) q[j] * x[j];
  return sum;
}

/* One output of an int8x8 row from its integer sum; both kernel copies end
 * each row here. (|sum| < 2^24, so the conversion is exact.) */
static inline __attribute__ ((always_inline)) gfloat
s8x8_output (gint32 sum, gfloat scale)
{
  return (gfloat) sum * scale * (1.0f / DSP_S8X8_ONE);
}

/* Rows @from .. rows - 1 one at a time: the portable kernel, and the rows
 * after the AVX2 kernel's groups of four. @bias (nullable) is added to each
 * output as dsp_matrix_gemv() adds it to the other kernels' outputs: the
 * same addition, the same bits. */
static inline __attribute__ ((always_inline)) void
gemv_s8x8_rows (const DspMatrix *matrix, const gint16 *xq, const gfloat *bias,
    gfloat *output, guint from)
{
  gsize cols = matrix->cols;
  guint r;

  for (r = from; r < matrix->rows; r++) {
    output[r] = s8x8_output (dot_s8x8 (matrix->s8 + r * cols, xq, cols),
        matrix->scale[r]);
    if (bias != NULL)
      output[r] += bias[r];
  }
}

/* The body of both copies; @load_s8 is a constant once inlined. */
static inline __attribute__ ((always_inline)) void
gemv_rows (const DspMatrix *matrix, const gfloat *input, gfloat *output,
    DspLoadS8 load_s8)
{
  guint r, cols = matrix->cols;

  if (matrix->type == DSP_WEIGHT_S8) {
    for (r = 0; r < matrix->rows; r++)
      output[r] = dot_s8 (matrix->s8 + (gsize) r * cols, input, cols, load_s8)
          * matrix->scale[r];
  } else {
    for (r = 0; r < matrix->rows; r++)
      output[r] = dot_f32 (matrix->f32 + (gsize) r * cols, input, cols);
  }
}

static void
gemv_portable (const DspMatrix *matrix, const gfloat *input, gfloat *output)
{
  gemv_rows (matrix, input, output, load_s8_portable);
}

#ifdef DSP_DENSE_AVX2
__attribute__ ((target ("avx2"))) static inline DspLanes
load_s8_avx2 (const gint8 *p)
{
  __m256 v = _mm256_cvtepi32_ps (
      _mm256_cvtepi8_epi32 (_mm_loadl_epi64 ((const __m128i *) p)));
  DspLanes out;

  memcpy (&out, &v, sizeof (out));
  return out;
}

/* The sums of four AVX accumulators, one per row, each in dot_lanes_sum()'s
 * order (lane j + lane j + 4, then pairs, then the two halves). */
__attribute__ ((target ("avx2"))) static inline __m128
sum4_lanes_avx2 (__m256 a0, __m256 a1, __m256 a2, __m256 a3)
{
  __m128 h0
      = _mm_add_ps (_mm256_castps256_ps128 (a0), _mm256_extractf128_ps (a0, 1));
  __m128 h1
      = _mm_add_ps (_mm256_castps256_ps128 (a1), _mm256_extractf128_ps (a1, 1));
  __m128 h2
      = _mm_add_ps (_mm256_castps256_ps128 (a2), _mm256_extractf128_ps (a2, 1));
  __m128 h3
      = _mm_add_ps (_mm256_castps256_ps128 (a3), _mm256_extractf128_ps (a3, 1));

  return _mm_hadd_ps (_mm_hadd_ps (h0, h1), _mm_hadd_ps (h2, h3));
}

/* Eight int8 weights as floats. */
__attribute__ ((target ("avx2"))) static inline __m256
s8_to_ps_avx2 (const gint8 *p)
{
  return _mm256_cvtepi32_ps (
      _mm256_cvtepi8_epi32 (_mm_loadl_epi64 ((const __m128i *) p)));
}

/* Eight weights from @at on, as floats; @type is a constant once inlined. */
__attribute__ ((target ("avx2"), always_inline)) static inline __m256
load_weights_avx2 (const DspMatrix *matrix, DspWeightType type, gsize at)
{
  if (type == DSP_WEIGHT_S8)
    return s8_to_ps_avx2 (matrix->s8 + at);
  return _mm256_loadu_ps (matrix->f32 + at);
}

static inline __attribute__ ((always_inline)) gfloat
weight_at (const DspMatrix *matrix, DspWeightType type, gsize at)
{
  return type == DSP_WEIGHT_S8 ? (gfloat) matrix->s8[at] : matrix->f32[at];
}

/* Four rows at once: each input vector is loaded once for the four, their
 * four accumulators do not wait on each other, and their horizontal sums
 * share the shuffles. (Eight rows were slower here: the accumulators no
 * longer fit the registers.) Each row's sum is taken in the portable
 * kernel's order, tail last, then scaled (int8), so the result is the same
 * to the bit. @type is a constant once inlined. */
__attribute__ ((target ("avx2"), always_inline)) static inline void
gemv4_avx2 (const DspMatrix *matrix, DspWeightType type, const gfloat *input,
    gfloat *output)
{
  gsize cols = matrix->cols, full = cols - cols % DSP_DOT_LANES, j;
  guint r, i;

  for (r = 0; r + 4 <= matrix->rows; r += 4) {
    gsize row = r * cols;
    __m256 a0 = _mm256_setzero_ps (), a1 = a0, a2 = a0, a3 = a0;
    gfloat sums[4];

    for (j = 0; j < full; j += DSP_DOT_LANES) {
      __m256 x = _mm256_loadu_ps (input + j);

      a0 = _mm256_add_ps (a0,
          _mm256_mul_ps (load_weights_avx2 (matrix, type, row + j), x));
      a1 = _mm256_add_ps (a1,
          _mm256_mul_ps (load_weights_avx2 (matrix, type, row + cols + j), x));
      a2 = _mm256_add_ps (a2,
          _mm256_mul_ps (load_weights_avx2 (matrix, type, row + 2 * cols + j),
              x));
      a3 = _mm256_add_ps (a3,
          _mm256_mul_ps (load_weights_avx2 (matrix, type, row + 3 * cols + j),
              x));
    }
    _mm_storeu_ps (sums, sum4_lanes_avx2 (a0, a1, a2, a3));
    for (i = 0; i < 4; i++) {
      gfloat tail = 0.0f;

      for (j = full; j < cols; j++)
        tail += weight_at (matrix, type, row + i * cols + j) * input[j];
      output[r + i] = sums[i] + tail;
      if (type == DSP_WEIGHT_S8)
        output[r + i] *= matrix->scale[r + i];
    }
  }
  for (; r < matrix->rows; r++) {
    if (type == DSP_WEIGHT_S8)
      output[r] = dot_s8 (matrix->s8 + r * cols, input, cols, load_s8_avx2)
          * matrix->scale[r];
    else
      output[r] = dot_f32 (matrix->f32 + r * cols, input, cols);
  }
}

/* The sums of four integer accumulators, one per row (exact, so in any
 * order). */
__attribute__ ((target ("avx2"))) static inline __m128i
sum4_epi32_avx2 (__m256i a0, __m256i a1, __m256i a2, __m256i a3)
{
  __m128i h0 = _mm_add_epi32 (_mm256_castsi256_si128 (a0),
      _mm256_extracti128_si256 (a0, 1));
  __m128i h1 = _mm_add_epi32 (_mm256_castsi256_si128 (a1),
      _mm256_extracti128_si256 (a1, 1));
  __m128i h2 = _mm_add_epi32 (_mm256_castsi256_si128 (a2),
      _mm256_extracti128_si256 (a2, 1));
  __m128i h3 = _mm_add_epi32 (_mm256_castsi256_si128 (a3),
      _mm256_extracti128_si256 (a3, 1));

  return _mm_hadd_epi32 (_mm_hadd_epi32 (h0, h1), _mm_hadd_epi32 (h2, h3));
}

/* Sixteen int8 weights from @p, times sixteen 16-bit inputs, as eight
 * sums of adjacent pairs: each product is at most 128 x 127, so the pair
 * sums cannot saturate. */
__attribute__ ((target ("avx2"))) static inline __m256i
madd16_avx2 (const gint8 *p, __m256i x)
{
  return _mm256_madd_epi16 (_mm256_cvtepi8_epi16 (
                                _mm_loadu_si128 ((const __m128i *) p)),
      x);
}

/* int8x8 rows four at a time, as gemv4_avx2() does for the float kernels:
 * sixteen products per instruction instead of eight, and a quarter of the
 * weight bytes to read. */
__attribute__ ((target ("avx2"))) static void
gemv_s8x8_avx2 (const DspMatrix *matrix, const gint16 *xq, const gfloat *bias,
    gfloat *output)
{
  gsize cols = matrix->cols, full = cols - cols % 16, j;
  guint r, i;

  for (r = 0; r + 4 <= matrix->rows; r += 4) {
    const gint8 *w = matrix->s8 + r * cols;
    __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0;
    __m128i sum;
    __m128 out;
    gint32 tails[4];

    for (j = 0; j < full; j += 16) {
      __m256i x = _mm256_loadu_si256 ((const __m256i *) (xq + j));

      a0 = _mm256_add_epi32 (a0, madd16_avx2 (w + j, x));
      a1 = _mm256_add_epi32 (a1, madd16_avx2 (w + cols + j, x));
      a2 = _mm256_add_epi32 (a2, madd16_avx2 (w + 2 * cols + j, x));
      a3 = _mm256_add_epi32 (a3, madd16_avx2 (w + 3 * cols + j, x));
    }
    sum = sum4_epi32_avx2 (a0, a1, a2, a3);
    if (full < cols) {
      for (i = 0; i < 4; i++)
        tails[i] = dot_s8x8 (w + i * cols + full, xq + full, cols - full);
      sum = _mm_add_epi32 (sum, _mm_loadu_si128 ((const __m128i *) tails));
    }
    /* s8x8_output() of the four rows, plus their bias: the same exact
     * conversion, the same two roundings and the same addition, lane by
     * lane. */
    out = _mm_mul_ps (_mm_mul_ps (_mm_cvtepi32_ps (sum),
                          _mm_loadu_ps (matrix->scale + r)),
        _mm_set1_ps (1.0f / DSP_S8X8_ONE));
    if (bias != NULL)
      out = _mm_add_ps (out, _mm_loadu_ps (bias + r));
    _mm_storeu_ps (output + r, out);
  }
  gemv_s8x8_rows (matrix, xq, bias, output, r);
}

__attribute__ ((target ("avx2"))) static void
gemv_avx2 (const DspMatrix *matrix, const gfloat *input, gfloat *output)
{
  if (matrix->type == DSP_WEIGHT_F32)
    gemv4_avx2 (matrix, DSP_WEIGHT_F32, input, output);
  else
    gemv4_avx2 (matrix, DSP_WEIGHT_S8, input, output);
}
#endif

/* The inputs are quantised once, on the stack (at most
 * DSP_MATRIX_MAX_S8X8_COLS x 2 bytes: 2 KiB), then every row reads them. */
static void
gemv_s8x8 (const DspMatrix *matrix, const gfloat *input, const gfloat *bias,
    gfloat *output, gboolean avx2)
{
  gint16 xq[DSP_MATRIX_MAX_S8X8_COLS];

  g_return_if_fail (matrix->cols <= DSP_MATRIX_MAX_S8X8_COLS);

  quantise_inputs (input, matrix->cols, xq);
#ifdef DSP_DENSE_AVX2
  if (avx2) {
    gemv_s8x8_avx2 (matrix, xq, bias, output);
    return;
  }
#else
  (void) avx2;
#endif
  gemv_s8x8_rows (matrix, xq, bias, output, 0);
}

static gint portable_only = 0;

/**
 * dsp_dense_set_portable_only:
 * @portable_only: TRUE to use the portable kernels even where AVX2 exists
 *
 * For tests and benchmarks: the two kernel copies give identical results,
 * and this is how a test shows it. Thread-safe; takes effect at the next
 * call.
 */
void
dsp_dense_set_portable_only (gboolean portable)
{
  g_atomic_int_set (&portable_only, portable ? 1 : 0);
}

/**
 * dsp_dense_get_portable_only:
 *
 * Returns: TRUE while dsp_dense_set_portable_only() holds the portable
 *   kernels (the pitch search's dot product follows it too).
 */
gboolean
dsp_dense_get_portable_only (void)
{
  return g_atomic_int_get (&portable_only) != 0;
}

/**
 * dsp_matrix_gemv:
 * @matrix: a rows x cols matrix (float, or int8 with per-row scales; at
 *   most DSP_MATRIX_MAX_S8X8_COLS columns for int8x8)
 * @input: cols values
 * @bias: (nullable): rows values added to the product
 * @output: rows values
 *
 * output = matrix * input (+ bias). Uses AVX2 where the CPU has it, with
 * results identical to the portable code. Never allocates.
 */
void
dsp_matrix_gemv (const DspMatrix *matrix, const gfloat *input,
    const gfloat *bias, gfloat *output)
{
  gboolean avx2 = FALSE;
  guint r;

#ifdef DSP_DENSE_AVX2
  avx2 = __builtin_cpu_supports ("avx2") && !dsp_dense_get_portable_only ();
#endif
  if (matrix->type == DSP_WEIGHT_S8X8) {
    /* Adds the bias itself, where the outputs are still in registers. */
    gemv_s8x8 (matrix, input, bias, output, avx2);
    return;
  }
#ifdef DSP_DENSE_AVX2
  if (avx2)
    gemv_avx2 (matrix, input, output);
  else
#endif
    gemv_portable (matrix, input, output);
  if (bias != NULL) {
    for (r = 0; r < matrix->rows; r++)
      output[r] += bias[r];
  }
}

/**
 * dsp_activation_apply:
 * @activation: the function.
 * @values: @n_values floats, replaced by their activation.
 * @n_values: number of values.
 *
 * Applies @activation in place. Never allocates.
 */
void
dsp_activation_apply (DspActivation activation, gfloat *values, guint n_values)
{
  guint i;

  switch (activation) {
    case DSP_ACTIVATION_TANH:
      for (i = 0; i + 4 <= n_values; i += 4)
        dsp_vec4_store (values + i, dsp_tanh4 (dsp_vec4_load (values + i)));
      for (; i < n_values; i++)
        values[i] = dsp_tanh (values[i]);
      break;
    case DSP_ACTIVATION_SIGMOID:
      for (i = 0; i + 4 <= n_values; i += 4)
        dsp_vec4_store (values + i, dsp_sigmoid4 (dsp_vec4_load (values + i)));
      for (; i < n_values; i++)
        values[i] = dsp_sigmoid (values[i]);
      break;
    case DSP_ACTIVATION_RELU:
      for (i = 0; i < n_values; i++)
        values[i] = values[i] > 0.0f ? values[i] : 0.0f;
      break;
    case DSP_ACTIVATION_LINEAR:
    default:
      break;
  }
}

/**
 * dsp_activation_name:
 * @activation: an activation.
 *
 * Returns: (transfer none): a static lower-case name ("tanh"), or "unknown".
 */
const gchar *
dsp_activation_name (DspActivation activation)
{
  switch (activation) {
    case DSP_ACTIVATION_LINEAR:
      return "linear";
    case DSP_ACTIVATION_TANH:
      return "tanh";
    case DSP_ACTIVATION_SIGMOID:
      return "sigmoid";
    case DSP_ACTIVATION_RELU:
      return "relu";
    default:
      return "unknown";
  }
}

/**
 * dsp_weight_type_name:
 * @type: a weight type.
 *
 * Returns: (transfer none): a static name ("f32", "int8", "int8x8"), or
 *   "unknown".
 */
const gchar *
dsp_weight_type_name (DspWeightType type)
{
  switch (type) {
    case DSP_WEIGHT_F32:
      return "f32";
    case DSP_WEIGHT_S8:
      return "int8";
    case DSP_WEIGHT_S8X8:
      return "int8x8";
    default:
      return "unknown";
  }
}

/**
 * dsp_dense_forward:
 * @dense: the layer.
 * @input: @batch x input_size floats, row-major.
 * @output: @batch x output_size floats, row-major, written; must not
 *   overlap @input.
 * @batch: number of rows.
 *
 * Computes output = act (W input + b) for each row. Never allocates, never
 * fails; safe to call from several threads at once on different buffers.
 */
void
dsp_dense_forward (const DspDense *dense, const gfloat *input, gfloat *output,
    guint batch)
{
  guint b;

  g_return_if_fail (dense != NULL);
  g_return_if_fail (input != NULL || batch == 0);
  g_return_if_fail (output != NULL || batch == 0);

  for (b = 0; b < batch; b++) {
    gfloat *out = output + (gsize) b * dense->output_size;

    dsp_matrix_gemv (&dense->weights, input + (gsize) b * dense->input_size,
        dense->bias, out);
    dsp_activation_apply (dense->activation, out, dense->output_size);
  }
}
