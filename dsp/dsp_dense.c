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
#include <cpuid.h>
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

/* Rows @r .. @r + 3 from their integer sums over the first @full columns:
 * the products of the columns after them are added (exactly), then each
 * row goes through s8x8_output() plus its bias, lane by lane: the same
 * exact conversion, the same two roundings and the same addition. */
__attribute__ ((target ("avx2"))) static inline void
finish_s8x8_rows4 (const DspMatrix *matrix, guint r, __m128i sum, gsize full,
    const gint16 *xq, const gfloat *bias, gfloat *output)
{
  gsize cols = matrix->cols;
  const gint8 *w = matrix->s8 + r * cols;
  gint32 tails[4];
  __m128 out;
  guint i;

  if (full < cols) {
    for (i = 0; i < 4; i++)
      tails[i] = dot_s8x8 (w + i * cols + full, xq + full, cols - full);
    sum = _mm_add_epi32 (sum, _mm_loadu_si128 ((const __m128i *) tails));
  }
  out = _mm_mul_ps (_mm_mul_ps (_mm_cvtepi32_ps (sum),
                        _mm_loadu_ps (matrix->scale + r)),
      _mm_set1_ps (1.0f / DSP_S8X8_ONE));
  if (bias != NULL)
    out = _mm_add_ps (out, _mm_loadu_ps (bias + r));
  _mm_storeu_ps (output + r, out);
}

/* int8x8 rows four at a time, as gemv4_avx2() does for the float kernels:
 * sixteen products per instruction instead of eight, and a quarter of the
 * weight bytes to read. */
__attribute__ ((target ("avx2"))) static void
gemv_s8x8_avx2 (const DspMatrix *matrix, const gint16 *xq, const gfloat *bias,
    gfloat *output)
{
  gsize cols = matrix->cols, full = cols - cols % 16, j;
  guint r;

  for (r = 0; r + 4 <= matrix->rows; r += 4) {
    const gint8 *w = matrix->s8 + r * cols;
    __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0;

    for (j = 0; j < full; j += 16) {
      __m256i x = _mm256_loadu_si256 ((const __m256i *) (xq + j));

      a0 = _mm256_add_epi32 (a0, madd16_avx2 (w + j, x));
      a1 = _mm256_add_epi32 (a1, madd16_avx2 (w + cols + j, x));
      a2 = _mm256_add_epi32 (a2, madd16_avx2 (w + 2 * cols + j, x));
      a3 = _mm256_add_epi32 (a3, madd16_avx2 (w + 3 * cols + j, x));
    }
    finish_s8x8_rows4 (matrix, r, sum4_epi32_avx2 (a0, a1, a2, a3), full, xq,
        bias, output);
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

/* The packed layout (dsp_matrix_pack()), which the AVX2 and VNNI kernels
 * read: blocks of eight rows, each a run of 32-byte groups, one per four
 * columns: row k's four weights at bytes 4k..4k+3. One instruction (VNNI)
 * or four (AVX2) then multiply a group by four inputs broadcast to every
 * lane and add each row's four products into its own 32-bit lane, so the
 * eight sums come out in the eight lanes, with no sums across lanes. The
 * rows after the last multiple of eight and the columns after the last
 * multiple of four are padded with zero weights and zero inputs. After the
 * blocks, one 32-bit integer per row (padding rows included): 128 x the
 * row's weights' sum, which the VNNI kernel takes away (see there). */
#define DSP_PACK_ROWS 8
#define DSP_PACK_COLS 4
#define DSP_PACK_GROUP (DSP_PACK_ROWS * DSP_PACK_COLS)

/* The kernels take four blocks at a time, a tile of 32 rows: each group
 * of inputs is broadcast once for the four, and four sums are in flight. */
#define DSP_PACK_TILE 4

static guint
packed_blocks (guint rows)
{
  return (rows + DSP_PACK_ROWS - 1) / DSP_PACK_ROWS;
}

static guint
packed_groups (guint cols)
{
  return (cols + DSP_PACK_COLS - 1) / DSP_PACK_COLS;
}

/* The bytes of a block's weights. */
static gsize
packed_block_bytes (guint cols)
{
  return (gsize) packed_groups (cols) * DSP_PACK_GROUP;
}

/* The rows' 128 x sums of weights, after the blocks (4-byte aligned: the
 * blocks take a multiple of 32 bytes from an aligned start). */
static const gint32 *
packed_excess (const DspMatrix *matrix)
{
  return (const gint32 *) (matrix->packed
      + packed_blocks (matrix->rows) * packed_block_bytes (matrix->cols));
}

/* The four inputs of group @g, as one 32-bit lane to broadcast. */
static inline gint32
packed_inputs (const guint8 *x, guint g)
{
  gint32 v;

  memcpy (&v, x + (gsize) g * DSP_PACK_COLS, sizeof (v));
  return v;
}

/* Eight rows' outputs from their integer sums, as s8x8_output() plus the
 * bias gives them, lane by lane (the same exact conversion, the same two
 * roundings and the same addition). @scale and @bias (nullable) point at
 * the block's first row. */
__attribute__ ((target ("avx2"))) static inline __m256
packed_block_outputs (__m256i sum, const gfloat *scale, const gfloat *bias)
{
  __m256 v = _mm256_mul_ps (_mm256_mul_ps (_mm256_cvtepi32_ps (sum),
                                _mm256_loadu_ps (scale)),
      _mm256_set1_ps (1.0f / DSP_S8X8_ONE));

  return bias != NULL ? _mm256_add_ps (v, _mm256_loadu_ps (bias)) : v;
}

/* Stores block @b's outputs; the last block's rows past the matrix's are
 * read from zero-padded copies and not stored. (Full blocks read the
 * model's arrays directly: a copy would make each load wait for the stores
 * that made it.) */
__attribute__ ((target ("avx2"))) static inline void
finish_packed_block (const DspMatrix *matrix, guint b, __m256i sum,
    const gfloat *bias, gfloat *output)
{
  guint r = b * DSP_PACK_ROWS, n = MIN (DSP_PACK_ROWS, matrix->rows - r);
  gfloat scale[DSP_PACK_ROWS] = { 0 }, add[DSP_PACK_ROWS] = { 0 };
  gfloat out[DSP_PACK_ROWS];

  if (n == DSP_PACK_ROWS) {
    _mm256_storeu_ps (output + r,
        packed_block_outputs (sum, matrix->scale + r,
            bias != NULL ? bias + r : NULL));
    return;
  }
  memcpy (scale, matrix->scale + r, n * sizeof (gfloat));
  if (bias != NULL)
    memcpy (add, bias + r, n * sizeof (gfloat));
  _mm256_storeu_ps (out,
      packed_block_outputs (sum, scale, bias != NULL ? add : NULL));
  memcpy (output + r, out, n * sizeof (gfloat));
}

/* Stores a tile's @n blocks from @b (its four sums, in order). */
__attribute__ ((target ("avx2"))) static inline void
finish_packed_tile (const DspMatrix *matrix, guint b, guint n,
    const __m256i sums[DSP_PACK_TILE], const gfloat *bias, gfloat *output)
{
  guint k;

  for (k = 0; k < n; k++)
    finish_packed_block (matrix, b + k, sums[k], bias, output);
}

/* The byte offsets of a tile's four blocks from its first: a tile of @n <
 * 4 blocks (the last) reads its last block again in the lanes it lacks,
 * and finish_packed_tile() drops those sums. */
static inline void
packed_tile_offsets (guint n, gsize block_bytes, gsize offsets[DSP_PACK_TILE])
{
  guint k;

  for (k = 0; k < DSP_PACK_TILE; k++)
    offsets[k] = MIN (k, n - 1) * block_bytes;
}

/* One group of a block on AVX2: @acc plus each row's four products of
 * its weights (the 32 bytes at @w) and the group's inputs, @sign (the
 * signed inputs, broadcast) and @size (their magnitudes, broadcast); see
 * gemv_s8x8_packed_avx2(). */
__attribute__ ((target ("avx2"))) static inline __m256i
packed_step_avx2 (__m256i acc, const guint8 *w, __m256i sign, __m256i size)
{
  __m256i signed_w
      = _mm256_sign_epi8 (_mm256_loadu_si256 ((const __m256i *) w), sign);

  return _mm256_add_epi32 (acc,
      _mm256_madd_epi16 (_mm256_maddubs_epi16 (size, signed_w),
          _mm256_set1_epi16 (1)));
}

/* int8x8 rows from the packed weights on the AVX2 instructions, a tile at
 * a time, for a matrix with no weight at -128 (packed_sign_safe). The
 * byte multiply (vpmaddubsw) takes unsigned bytes times signed ones and
 * adds pairs of products into 16 bits, saturating: so each weight takes
 * its input's sign (vpsignb, which zeroes it where the input is 0) and
 * multiplies the input's magnitude. With |w| and |x| at most 127 a pair
 * is at most 2 x 127 x 127 = 32258 and never saturates; a pair of pairs
 * then goes to 32 bits (vpmaddwd by ones). Every sum is exact, so the
 * rows are the other kernels' to the bit. @xs: the quantised inputs as
 * signed bytes, @xa their magnitudes, both zero-padded to the groups. */
__attribute__ ((target ("avx2"))) static void
gemv_s8x8_packed_avx2 (const DspMatrix *matrix, const guint8 *xs,
    const guint8 *xa, const gfloat *bias, gfloat *output)
{
  guint blocks = packed_blocks (matrix->rows), groups, b, g, n;
  gsize bytes = packed_block_bytes (matrix->cols), at[DSP_PACK_TILE];

  groups = packed_groups (matrix->cols);
  for (b = 0; b < blocks; b += DSP_PACK_TILE) {
    const guint8 *w = matrix->packed + b * bytes;
    __m256i sums[DSP_PACK_TILE];
    __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0;

    n = MIN (DSP_PACK_TILE, blocks - b);
    packed_tile_offsets (n, bytes, at);
    for (g = 0; g < groups; g++, w += DSP_PACK_GROUP) {
      __m256i sign = _mm256_set1_epi32 (packed_inputs (xs, g));
      __m256i size = _mm256_set1_epi32 (packed_inputs (xa, g));

      a0 = packed_step_avx2 (a0, w + at[0], sign, size);
      a1 = packed_step_avx2 (a1, w + at[1], sign, size);
      a2 = packed_step_avx2 (a2, w + at[2], sign, size);
      a3 = packed_step_avx2 (a3, w + at[3], sign, size);
    }
    sums[0] = a0;
    sums[1] = a1;
    sums[2] = a2;
    sums[3] = a3;
    finish_packed_tile (matrix, b, n, sums, bias, output);
  }
}

/* int8x8 rows from the packed weights on the VNNI byte dot product, a tile
 * at a time. The instruction multiplies unsigned by signed bytes, so the
 * inputs come as x + 128 (0..255, @xu, zero inputs padded as 128) and
 * each row's sum then holds 128 x its weights' sum too, which the packing
 * worked out and is taken away here. Every sum is an exact integer
 * (|x + 128| x |w| x cols <= 255 x 128 x DSP_MATRIX_MAX_S8X8_COLS < 2^31),
 * so the rows are the other kernels' to the bit. Written once for the two
 * encodings of the instruction: AVX-VNNI (VEX) and AVX512-VNNI with
 * AVX512VL (EVEX). */
#define DSP_DEFINE_GEMV_S8X8_VNNI(name, isa, dpbusd) \
  __attribute__ ((target (isa))) static void name (const DspMatrix *matrix, \
      const guint8 *xu, const gfloat *bias, gfloat *output) \
  { \
    guint blocks = packed_blocks (matrix->rows), groups, b, g, n, k; \
    gsize bytes = packed_block_bytes (matrix->cols), at[DSP_PACK_TILE]; \
    const gint32 *excess = packed_excess (matrix); \
\
    groups = packed_groups (matrix->cols); \
    for (b = 0; b < blocks; b += DSP_PACK_TILE) { \
      const guint8 *w = matrix->packed + b * bytes; \
      __m256i sums[DSP_PACK_TILE]; \
      __m256i a0 = _mm256_setzero_si256 (), a1 = a0, a2 = a0, a3 = a0; \
\
      n = MIN (DSP_PACK_TILE, blocks - b); \
      packed_tile_offsets (n, bytes, at); \
      for (g = 0; g < groups; g++, w += DSP_PACK_GROUP) { \
        __m256i x = _mm256_set1_epi32 (packed_inputs (xu, g)); \
\
        a0 = dpbusd (a0, x, \
            _mm256_loadu_si256 ((const __m256i *) (w + at[0]))); \
        a1 = dpbusd (a1, x, \
            _mm256_loadu_si256 ((const __m256i *) (w + at[1]))); \
        a2 = dpbusd (a2, x, \
            _mm256_loadu_si256 ((const __m256i *) (w + at[2]))); \
        a3 = dpbusd (a3, x, \
            _mm256_loadu_si256 ((const __m256i *) (w + at[3]))); \
      } \
      sums[0] = a0; \
      sums[1] = a1; \
      sums[2] = a2; \
      sums[3] = a3; \
      for (k = 0; k < n; k++) \
        sums[k] = _mm256_sub_epi32 (sums[k], \
            _mm256_loadu_si256 ( \
                (const __m256i *) (excess + (b + k) * DSP_PACK_ROWS))); \
      finish_packed_tile (matrix, b, n, sums, bias, output); \
    } \
  }

DSP_DEFINE_GEMV_S8X8_VNNI (gemv_s8x8_avx_vnni, "avx2,avxvnni",
    _mm256_dpbusd_avx_epi32)
DSP_DEFINE_GEMV_S8X8_VNNI (gemv_s8x8_avx512_vnni, "avx2,avx512vnni,avx512vl",
    _mm256_dpbusd_epi32)
#endif

/* What this CPU has, found once: a #DspKernels, and for
 * %DSP_KERNELS_VNNI whether the VEX encoding (AVX-VNNI) is there. */
typedef struct
{
  DspKernels kernels;
  gboolean avx_vnni;
} DspCpuKernels;

/* CPUID leaf 7, sub-leaf 1, EAX bit 4: AVX-VNNI. (Asked directly: not
 * every compiler's __builtin_cpu_supports() knows its name.) */
#define DSP_CPUID_7_1_EAX_AVX_VNNI (1u << 4)

static DspCpuKernels
detect_cpu_kernels (void)
{
  DspCpuKernels cpu = { DSP_KERNELS_PORTABLE, FALSE };
#ifdef DSP_DENSE_AVX2
  guint eax = 0, ebx = 0, ecx = 0, edx = 0;

  if (!__builtin_cpu_supports ("avx2"))
    return cpu;
  cpu.kernels = DSP_KERNELS_AVX2;
  /* AVX2 support means the OS saves the YMM registers, which is all the
   * VEX-encoded instruction needs; __builtin_cpu_supports() checks the
   * AVX-512 state for the EVEX one. */
  if (__get_cpuid_count (7, 1, &eax, &ebx, &ecx, &edx)
      && (eax & DSP_CPUID_7_1_EAX_AVX_VNNI) != 0) {
    cpu.kernels = DSP_KERNELS_VNNI;
    cpu.avx_vnni = TRUE;
  } else if (__builtin_cpu_supports ("avx512vnni")
      && __builtin_cpu_supports ("avx512vl")) {
    cpu.kernels = DSP_KERNELS_VNNI;
  }
#endif
  return cpu;
}

/* CPUID is slow (and traps to the hypervisor in a virtual machine), so it
 * is asked once per process. */
static const DspCpuKernels *
cpu_kernels (void)
{
  static DspCpuKernels cpu;
  static gsize found = 0;

  if (g_once_init_enter (&found)) {
    cpu = detect_cpu_kernels ();
    g_once_init_leave (&found, 1);
  }
  return &cpu;
}

#ifdef DSP_DENSE_AVX2
/* Eight inputs as quantise_input4() quantises four, with the same float
 * operations (so the same integers), as 32-bit integers. A NaN product
 * comes out of min and max as a number (they return their second operand
 * when one is NaN); the mask of the ordered products then zeroes it, as
 * the portable code does. */
__attribute__ ((target ("avx2"))) static inline __m256i
quantise_input8_avx2 (const gfloat *x)
{
  __m256 one = _mm256_set1_ps (DSP_S8X8_ONE);
  __m256 magic = _mm256_set1_ps (DSP_ROUND_MAGIC);
  __m256 v = _mm256_mul_ps (_mm256_loadu_ps (x), one);
  __m256 ordered = _mm256_cmp_ps (v, v, _CMP_ORD_Q);

  v = _mm256_max_ps (_mm256_min_ps (v, one), _mm256_set1_ps (-DSP_S8X8_ONE));
  v = _mm256_and_ps (v, ordered);
  return _mm256_cvttps_epi32 (_mm256_sub_ps (_mm256_add_ps (v, magic), magic));
}

/* The inputs of the packed kernels, as bytes, zero-padded to their
 * groups: the quantised inputs (signed), and for each kernel the bytes it
 * multiplies them as: their magnitudes (AVX2) or x + 128 (VNNI). The
 * arrays are whole 32-byte vectors long, so that they are made 32 at a
 * time. */
#define DSP_PACKED_INPUTS_SIZE (DSP_MATRIX_MAX_S8X8_COLS + 32)

typedef struct
{
  guint8 signed_bytes[DSP_PACKED_INPUTS_SIZE];
  guint8 kernel_bytes[DSP_PACKED_INPUTS_SIZE];
} DspPackedInputs;

/* Quantises the @n inputs of an int8x8 matrix as signed bytes (exact: they
 * are within +-127) into @xs, zero-padded to a multiple of 32 (which
 * covers the groups of four). */
__attribute__ ((target ("avx2"))) static void
quantise_inputs_s8_avx2 (const gfloat *x, guint n, guint8 *xs)
{
  /* Byte 0 of each 32-bit lane, in order, to the first four bytes of each
   * 128-bit half; then the halves' first four bytes side by side. */
  const __m256i bytes
      = _mm256_setr_epi8 (0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,
          -1, -1, 0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const __m256i halves = _mm256_setr_epi32 (0, 4, 0, 0, 0, 0, 0, 0);
  gint16 rest[8];
  guint i, k;

  for (i = 0; i + 8 <= n; i += 8) {
    __m256i q = quantise_input8_avx2 (x + i);

    q = _mm256_permutevar8x32_epi32 (_mm256_shuffle_epi8 (q, bytes), halves);
    _mm_storel_epi64 ((__m128i *) (xs + i), _mm256_castsi256_si128 (q));
  }
  if (i < n) {
    quantise_inputs (x + i, n - i, rest);
    for (k = 0; k < n - i; k++)
      xs[i + k] = (guint8) rest[k];
  }
  /* Up to the next whole vector: as far as the kernels' byte loops read. */
  memset (xs + n, 0, (n + 31) / 32 * 32 - n);
}

/* @n quantised inputs as the VNNI kernel reads them: x + 128 as unsigned
 * bytes (flipping the sign bit), zero inputs padded as 128. */
__attribute__ ((target ("avx2"))) static void
flip_inputs_avx2 (const guint8 *xs, guint n, guint8 *xu)
{
  const __m256i sign_bit = _mm256_set1_epi8 ((gchar) 0x80);
  guint i;

  for (i = 0; i < n; i += 32)
    _mm256_storeu_si256 ((__m256i *) (xu + i),
        _mm256_xor_si256 (_mm256_loadu_si256 ((const __m256i *) (xs + i)),
            sign_bit));
}

/* @n quantised inputs' magnitudes, as the AVX2 packed kernel reads them. */
__attribute__ ((target ("avx2"))) static void
input_magnitudes_avx2 (const guint8 *xs, guint n, guint8 *xa)
{
  guint i;

  for (i = 0; i < n; i += 32)
    _mm256_storeu_si256 ((__m256i *) (xa + i),
        _mm256_abs_epi8 (_mm256_loadu_si256 ((const __m256i *) (xs + i))));
}

/* The packed kernels on the float inputs @input: VNNI where @kernels is
 * %DSP_KERNELS_VNNI, AVX2 otherwise (packed_sign_safe matrices only). The
 * inputs are quantised once, on the stack (2 KiB), then every row reads
 * them. */
static void
gemv_s8x8_packed (const DspMatrix *matrix, const gfloat *input,
    const gfloat *bias, gfloat *output, DspKernels kernels)
{
  DspPackedInputs in;
  guint n = packed_groups (matrix->cols) * DSP_PACK_COLS;

  quantise_inputs_s8_avx2 (input, matrix->cols, in.signed_bytes);
  if (kernels == DSP_KERNELS_AVX2) {
    input_magnitudes_avx2 (in.signed_bytes, n, in.kernel_bytes);
    gemv_s8x8_packed_avx2 (matrix, in.signed_bytes, in.kernel_bytes, bias,
        output);
    return;
  }
  flip_inputs_avx2 (in.signed_bytes, n, in.kernel_bytes);
  if (cpu_kernels ()->avx_vnni)
    gemv_s8x8_avx_vnni (matrix, in.kernel_bytes, bias, output);
  else
    gemv_s8x8_avx512_vnni (matrix, in.kernel_bytes, bias, output);
}
#endif

/* The row kernels quantise the inputs once, on the stack (as 16-bit
 * integers, at most 2 KiB), then every row reads them. */
static void
gemv_s8x8 (const DspMatrix *matrix, const gfloat *input, const gfloat *bias,
    gfloat *output, DspKernels kernels)
{
  gint16 xq[DSP_MATRIX_MAX_S8X8_COLS];

  g_return_if_fail (matrix->cols <= DSP_MATRIX_MAX_S8X8_COLS);

#ifdef DSP_DENSE_AVX2
  if (matrix->packed != NULL
      && (kernels == DSP_KERNELS_VNNI
          || (kernels == DSP_KERNELS_AVX2 && matrix->packed_sign_safe))) {
    gemv_s8x8_packed (matrix, input, bias, output, kernels);
    return;
  }
#endif
  quantise_inputs (input, matrix->cols, xq);
#ifdef DSP_DENSE_AVX2
  if (kernels >= DSP_KERNELS_AVX2) {
    gemv_s8x8_avx2 (matrix, xq, bias, output);
    return;
  }
#else
  (void) kernels;
#endif
  gemv_s8x8_rows (matrix, xq, bias, output, 0);
}

static gint kernel_limit = DSP_KERNELS_VNNI;

/**
 * dsp_dense_set_kernel_limit:
 * @limit: the last kernel family to use, even where the CPU has a later one
 *
 * For tests and benchmarks: every kernel family gives the same results,
 * and this is how a test shows it (%DSP_KERNELS_PORTABLE runs the portable
 * kernels alone; %DSP_KERNELS_VNNI, the default, whatever the CPU has).
 * The GRU's and the pitch search's kernels follow it too. Thread-safe;
 * takes effect at the next call.
 */
void
dsp_dense_set_kernel_limit (DspKernels limit)
{
  g_return_if_fail (limit <= DSP_KERNELS_VNNI);

  g_atomic_int_set (&kernel_limit, limit);
}

/**
 * dsp_dense_get_kernels:
 *
 * Returns: the kernel family the next calls run: the last one the CPU has,
 *   within dsp_dense_set_kernel_limit()'s limit.
 */
DspKernels
dsp_dense_get_kernels (void)
{
  DspKernels limit = (DspKernels) g_atomic_int_get (&kernel_limit);

  return MIN (cpu_kernels ()->kernels, limit);
}

/**
 * dsp_kernels_name:
 * @kernels: a kernel family.
 *
 * Returns: (transfer none): a static name ("portable", "avx2", "vnni"), or
 *   "unknown".
 */
const gchar *
dsp_kernels_name (DspKernels kernels)
{
  switch (kernels) {
    case DSP_KERNELS_PORTABLE:
      return "portable";
    case DSP_KERNELS_AVX2:
      return "avx2";
    case DSP_KERNELS_VNNI:
      return "vnni";
    default:
      return "unknown";
  }
}

/**
 * dsp_matrix_packed_size:
 * @type: the matrix's weight type.
 * @rows: its rows.
 * @cols: its columns.
 *
 * Returns: the bytes dsp_matrix_pack() writes for such a matrix, a
 *   multiple of 32: 0 unless it is int8x8 and this CPU has AVX2 (the
 *   portable kernels read the weights as they are).
 */
gsize
dsp_matrix_packed_size (DspWeightType type, guint rows, guint cols)
{
#ifdef DSP_DENSE_AVX2
  if (type == DSP_WEIGHT_S8X8 && cpu_kernels ()->kernels >= DSP_KERNELS_AVX2)
    return (gsize) packed_blocks (rows)
        * (packed_block_bytes (cols) + DSP_PACK_ROWS * sizeof (gint32));
#else
  (void) type;
  (void) rows;
  (void) cols;
#endif
  return 0;
}

/**
 * dsp_matrix_pack:
 * @matrix: an int8x8 matrix; its @packed is set to @packed and its
 *   @packed_sign_safe to whether no weight is -128
 * @packed: dsp_matrix_packed_size() bytes, 4-byte aligned, written; owned
 *   by the caller, who keeps it alive as long as the matrix's other arrays
 *
 * Lays the weights out in blocks for the AVX2 and VNNI kernels
 * (dsp_dense.c), which then multiply the matrix, with the same results.
 * Does nothing where dsp_matrix_packed_size() is 0.
 */
void
dsp_matrix_pack (DspMatrix *matrix, guint8 *packed)
{
#ifdef DSP_DENSE_AVX2
  gsize size
      = dsp_matrix_packed_size (matrix->type, matrix->rows, matrix->cols),
      bytes = packed_block_bytes (matrix->cols), at;
  gint32 *excess;
  gboolean sign_safe = TRUE;
  guint r, c;

  if (size == 0)
    return;
  g_return_if_fail (((guintptr) packed) % sizeof (gint32) == 0);
  /* Zero weights, and zero sums, everywhere the matrix has none. */
  memset (packed, 0, size);
  excess = (gint32 *) (packed + packed_blocks (matrix->rows) * bytes);
  for (r = 0; r < matrix->rows; r++) {
    for (c = 0; c < matrix->cols; c++) {
      gint8 w = matrix->s8[(gsize) r * matrix->cols + c];

      at = (r / DSP_PACK_ROWS) * bytes + (c / DSP_PACK_COLS) * DSP_PACK_GROUP
          + (r % DSP_PACK_ROWS) * DSP_PACK_COLS + c % DSP_PACK_COLS;
      packed[at] = (guint8) w;
      excess[r] += 128 * w;
      sign_safe = sign_safe && w != G_MININT8;
    }
  }
  matrix->packed = packed;
  matrix->packed_sign_safe = sign_safe;
#else
  (void) matrix;
  (void) packed;
#endif
}

/**
 * dsp_matrix_gemv:
 * @matrix: a rows x cols matrix (float, or int8 with per-row scales; at
 *   most DSP_MATRIX_MAX_S8X8_COLS columns for int8x8)
 * @input: cols values
 * @bias: (nullable): rows values added to the product
 * @output: rows values
 *
 * output = matrix * input (+ bias). Uses AVX2 (and VNNI for int8x8) where
 * the CPU has it, with results identical to the portable code. Never
 * allocates.
 */
void
dsp_matrix_gemv (const DspMatrix *matrix, const gfloat *input,
    const gfloat *bias, gfloat *output)
{
  DspKernels kernels = dsp_dense_get_kernels ();
  guint r;

  if (matrix->type == DSP_WEIGHT_S8X8) {
    /* Adds the bias itself, where the outputs are still in registers. */
    gemv_s8x8 (matrix, input, bias, output, kernels);
    return;
  }
#ifdef DSP_DENSE_AVX2
  if (kernels >= DSP_KERNELS_AVX2)
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
