/* rnndenoise — dsp: weight matrices, activations and dense layers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_DENSE_H
#define DSP_DENSE_H

#include <glib.h>
#include <string.h>

G_BEGIN_DECLS

/**
 * DspActivation:
 * @DSP_ACTIVATION_LINEAR: y = x.
 * @DSP_ACTIVATION_TANH: y = tanh (x).
 * @DSP_ACTIVATION_SIGMOID: y = 1 / (1 + exp (-x)).
 * @DSP_ACTIVATION_RELU: y = max (x, 0).
 *
 * The values are the ones stored in model files (docs/model-format.md).
 */
typedef enum
{
  DSP_ACTIVATION_LINEAR = 0,
  DSP_ACTIVATION_TANH = 1,
  DSP_ACTIVATION_SIGMOID = 2,
  DSP_ACTIVATION_RELU = 3,
} DspActivation;

#define DSP_ACTIVATION_LAST DSP_ACTIVATION_RELU

/**
 * DspWeightType:
 * @DSP_WEIGHT_F32: 32-bit float weights.
 * @DSP_WEIGHT_S8: signed 8-bit weights with one float scale per row:
 *   w[r][c] = q[r][c] * scale[r]; the inputs stay float.
 * @DSP_WEIGHT_S8X8: the same weights, and the inputs quantised to 8 bits
 *   too: x[c] as round (clamp (x[c], -1, 1) * 127) (NaN as 0), the
 *   products summed in integers, then scaled by scale[r] / 127. Only for
 *   inputs bounded by ±1 (a GRU's, or a tanh or sigmoid layer's outputs).
 *   Integer sums are exact in any order, so every kernel gives the same
 *   bits.
 *
 * The values are the ones stored in model files (docs/model-format.md).
 */
typedef enum
{
  DSP_WEIGHT_F32 = 0,
  DSP_WEIGHT_S8 = 1,
  DSP_WEIGHT_S8X8 = 2,
} DspWeightType;

#define DSP_WEIGHT_LAST DSP_WEIGHT_S8X8

/* TRUE for the weight types stored as int8 with per-row scales. */
static inline gboolean
dsp_weight_type_is_s8 (DspWeightType type)
{
  return type == DSP_WEIGHT_S8 || type == DSP_WEIGHT_S8X8;
}

/**
 * DspMatrix:
 * @type: how the weights are stored.
 * @rows: number of rows (outputs).
 * @cols: number of columns (inputs).
 * @f32: (nullable): @rows x @cols floats, row-major, when @type is
 *   %DSP_WEIGHT_F32.
 * @s8: (nullable): @rows x @cols int8 values, row-major, when @type is
 *   %DSP_WEIGHT_S8 or %DSP_WEIGHT_S8X8.
 * @scale: (nullable): @rows floats, with the int8 types.
 * @packed: (nullable): the %DSP_WEIGHT_S8X8 weights again, laid out in
 *   blocks for the vector kernels by dsp_matrix_pack(); without them
 *   those kernels read the rows as they are.
 * @packed_sign_safe: set by dsp_matrix_pack() when no weight is -128:
 *   the AVX2 kernel then moves each input's sign onto the weights (-128
 *   has no opposite in a byte) and reads the blocks too.
 *
 * A borrowed, read-only view of a weight matrix: a plain value type that
 * owns nothing, so it has no _new or _free. Whoever fills it keeps the
 * arrays alive for as long as the view is used (the model, by refcount).
 */
typedef struct
{
  DspWeightType type;
  guint rows;
  guint cols;
  const gfloat *f32;
  const gint8 *s8;
  const gfloat *scale;
  const guint8 *packed;
  gboolean packed_sign_safe;
} DspMatrix;

/**
 * DspDense:
 * @input_size: values per batch row of the input.
 * @output_size: values per batch row of the output.
 * @activation: applied to every output.
 * @weights: @output_size x @input_size.
 * @bias: @output_size floats.
 *
 * A borrowed, read-only view of a dense layer y = act (W x + b); like
 * #DspMatrix it owns nothing.
 */
typedef struct
{
  guint input_size;
  guint output_size;
  DspActivation activation;
  DspMatrix weights;
  const gfloat *bias;
} DspDense;

/* The most columns an int8x8 matrix may have: model layers have at most
 * DSP_MODEL_MAX_LAYER_SIZE inputs. */
#define DSP_MATRIX_MAX_S8X8_COLS 1024

/**
 * DspKernels:
 * @DSP_KERNELS_PORTABLE: plain C (GCC vectors: SSE2 or NEON).
 * @DSP_KERNELS_AVX2: AVX2 copies of the matrix, GRU and pitch kernels.
 * @DSP_KERNELS_VNNI: AVX2, and int8x8 matrices multiplied with the VNNI
 *   byte dot product (AVX-VNNI, or AVX512-VNNI with AVX512VL).
 *
 * The kernel families, in order: each machine runs the last one its CPU
 * has. All give the same bits (dsp_dense.c).
 */
typedef enum
{
  DSP_KERNELS_PORTABLE = 0,
  DSP_KERNELS_AVX2 = 1,
  DSP_KERNELS_VNNI = 2,
} DspKernels;

void dsp_dense_set_kernel_limit (DspKernels limit);

DspKernels dsp_dense_get_kernels (void);

const gchar *dsp_kernels_name (DspKernels kernels);

gsize dsp_matrix_packed_size (DspWeightType type, guint rows, guint cols);

void dsp_matrix_pack (DspMatrix *matrix, guint8 *packed);

void dsp_matrix_gemv (const DspMatrix *matrix, const gfloat *input,
    const gfloat *bias, gfloat *output);

/* dsp_tanh: a rational approximation x P(x²) / Q(x²) on [-9, 9] (a
 * weighted least-squares fit, see dsp/tools/fit_tanh.py), within 3.5e-7 of
 * tanh for every float, and bounded by 1. About ten times faster than libm's
 * tanhf, and the same bits on every machine and C library, which keeps
 * migrated streams bit-exact across hosts. NaN stays NaN. DSP_TANH_RATIO
 * is its body for a float or a #DspVec4 x2 = x * x (the same operations in
 * the same order, so both give the same bits). */
#define DSP_TANH_LIMIT 9.0f
#define DSP_TANH_RATIO(x, x2) \
  ((x) \
      * (9.9999990644e-01f \
          + (x2) \
              * (1.3373182780e-01f \
                  + (x2) \
                      * (3.4865635566e-03f \
                          + (x2) \
                              * (2.0471504748e-05f \
                                  + (x2) *1.3183727887e-08f)))) \
      / (1.0f \
          + (x2) \
              * (4.6706479672e-01f \
                  + (x2) \
                      * (2.5841911013e-02f \
                          + (x2) \
                              * (3.2713543599e-04f \
                                  + (x2) *7.7024698437e-07f)))))

static inline gfloat
dsp_tanh (gfloat x)
{
  gfloat y;

  x = x > DSP_TANH_LIMIT ? DSP_TANH_LIMIT : x;
  x = x < -DSP_TANH_LIMIT ? -DSP_TANH_LIMIT : x;
  y = DSP_TANH_RATIO (x, x * x);
  y = y > 1.0f ? 1.0f : y;
  return y < -1.0f ? -1.0f : y;
}

/* dsp_sigmoid: 1 / (1 + exp (-x)) as (1 + tanh (x / 2)) / 2, within 2e-7. */
static inline gfloat
dsp_sigmoid (gfloat x)
{
  return 0.5f + 0.5f * dsp_tanh (0.5f * x);
}

/* Four floats as a GCC/clang vector (an SSE register on x86-64, a NEON one
 * on arm64), for the elementwise parts of the layers. */
typedef gfloat DspVec4 __attribute__ ((vector_size (4 * sizeof (gfloat))));
typedef gint32 DspMask4 __attribute__ ((vector_size (4 * sizeof (gint32))));

static inline DspVec4
dsp_vec4_load (const gfloat *p)
{
  DspVec4 v;

  memcpy (&v, p, sizeof (v));
  return v;
}

static inline void
dsp_vec4_store (gfloat *p, DspVec4 v)
{
  memcpy (p, &v, sizeof (v));
}

static inline DspVec4
dsp_vec4_splat (gfloat x)
{
  DspVec4 v = { x, x, x, x };

  return v;
}

/* Lanes of @a where @mask is set, of @b elsewhere: as the scalar ?:, which
 * keeps a NaN lane NaN where the comparison is false. */
static inline DspVec4
dsp_vec4_select (DspMask4 mask, DspVec4 a, DspVec4 b)
{
  return (DspVec4) ((mask & (DspMask4) a) | (~mask & (DspMask4) b));
}

/* @x held within @low..@high, lane by lane, as the scalar CLAMP(): a NaN
 * lane stays NaN. */
static inline DspVec4
dsp_vec4_clamp (DspVec4 x, DspVec4 low, DspVec4 high)
{
  x = dsp_vec4_select (x > high, high, x);
  return dsp_vec4_select (x < low, low, x);
}

/* dsp_tanh()'s clamps and ratio on a vector @x of any width, @select a
 * function like dsp_vec4_select() for it, @hi and @one vectors of
 * DSP_TANH_LIMIT and 1 (a GNU statement expression: the same operations,
 * lane by lane, for every width, so the same bits as dsp_tanh()). */
#define DSP_TANH_VECTOR(x, hi, one, select) \
  ({ \
    __typeof__ (x) x_ = select ((x) > (hi), (hi), (x)); \
    __typeof__ (x) y_; \
    x_ = select (x_ < -(hi), -(hi), x_); \
    y_ = DSP_TANH_RATIO (x_, x_ * x_); \
    y_ = select (y_ > (one), (one), y_); \
    select (y_ < -(one), -(one), y_); \
  })

/* dsp_tanh() of four values, lane by lane, with the same bits. */
static inline DspVec4
dsp_tanh4 (DspVec4 x)
{
  return DSP_TANH_VECTOR (x, dsp_vec4_splat (DSP_TANH_LIMIT),
      dsp_vec4_splat (1.0f), dsp_vec4_select);
}

/* dsp_sigmoid() of four values, lane by lane, with the same bits. */
static inline DspVec4
dsp_sigmoid4 (DspVec4 x)
{
  DspVec4 half = dsp_vec4_splat (0.5f);

  return half + half * dsp_tanh4 (half * x);
}

/* dsp_exp4: e^x of four values as 2^n e^r with n = round (x / ln 2) and
 * |r| <= ln 2 / 2 (r taken off in two parts, the first exact for every n),
 * e^r by its Taylor series to r^7 (the next term is below 6e-9 of it) and
 * 2^n put in the exponent bits. Within 2 ulp of e^x on [DSP_EXP_LOW,
 * DSP_EXP_HIGH], to which x is clamped (their powers of two stay normal
 * floats); NaN stays NaN. About half the time of libm's expf per value,
 * and its bits do not depend on the C library. */
#define DSP_EXP_LOW -87.0f
#define DSP_EXP_HIGH 88.0f
/* 1.5 * 2^23: adding then subtracting it rounds |y| < 2^22 to an integer
 * in the default rounding mode. */
#define DSP_EXP_ROUNDER 12582912.0f
/* ln 2 = DSP_EXP_LN2_HIGH + DSP_EXP_LN2_LOW; the first has 9 significant
 * bits, so its product with any |n| < 128 is exact. */
#define DSP_EXP_LN2_HIGH 0.693359375f
#define DSP_EXP_LN2_LOW -2.1219444005469e-4f

static inline DspVec4
dsp_exp4 (DspVec4 x)
{
  DspVec4 rounder = dsp_vec4_splat (DSP_EXP_ROUNDER);
  /* NaN lanes are computed as 0 (no float-to-int conversion of a NaN) and
   * given back as they came. */
  DspMask4 number = x == x;
  DspVec4 c
      = dsp_vec4_clamp (dsp_vec4_select (number, x, dsp_vec4_splat (0.0f)),
          dsp_vec4_splat (DSP_EXP_LOW), dsp_vec4_splat (DSP_EXP_HIGH));
  DspVec4 n, r, p;
  DspMask4 bits;

  n = (c * 1.44269504f + rounder) - rounder;
  r = (c - n * DSP_EXP_LN2_HIGH) - n * DSP_EXP_LN2_LOW;
  p = dsp_vec4_splat (1.0f / 5040.0f);
  p = p * r + 1.0f / 720.0f;
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  bits = (__builtin_convertvector(n, DspMask4) + 127) << 23;
  return dsp_vec4_select (number, p * (DspVec4) bits, x);
}

void dsp_activation_apply (DspActivation activation, gfloat *values,
    guint n_values);

const gchar *dsp_activation_name (DspActivation activation);

const gchar *dsp_weight_type_name (DspWeightType type);

void dsp_dense_forward (const DspDense *dense, const gfloat *input,
    gfloat *output, guint batch);

G_END_DECLS

#endif /* DSP_DENSE_H */
