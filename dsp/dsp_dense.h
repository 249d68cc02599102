/* rnndenoise — dsp: weight matrices, activations and dense layers
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_DENSE_H
#define DSP_DENSE_H

#include <glib.h>

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
 *   w[r][c] = q[r][c] * scale[r].
 *
 * The values are the ones stored in model files (docs/model-format.md).
 */
typedef enum
{
  DSP_WEIGHT_F32 = 0,
  DSP_WEIGHT_S8 = 1,
} DspWeightType;

#define DSP_WEIGHT_LAST DSP_WEIGHT_S8

/**
 * DspMatrix:
 * @type: how the weights are stored.
 * @rows: number of rows (outputs).
 * @cols: number of columns (inputs).
 * @f32: (nullable): @rows x @cols floats, row-major, when @type is
 *   %DSP_WEIGHT_F32.
 * @s8: (nullable): @rows x @cols int8 values, row-major, when @type is
 *   %DSP_WEIGHT_S8.
 * @scale: (nullable): @rows floats, when @type is %DSP_WEIGHT_S8.
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

void dsp_dense_set_portable_only (gboolean portable);

void dsp_matrix_gemv (const DspMatrix *matrix, const gfloat *input,
    const gfloat *bias, gfloat *output);

/* dsp_tanh: a rational approximation x P(x²) / Q(x²) on [-9, 9] (a
 * weighted least-squares fit, see dsp/tools/fit_tanh.py), within 3.5e-7 of
 * tanh for every float, and bounded by 1. About ten times faster than libm's
 * tanhf, and the same bits on every machine and C library, which keeps
 * migrated streams bit-exact across hosts. NaN stays NaN. */
static inline gfloat
dsp_tanh (gfloat x)
{
  gfloat x2, p, q, y;

  x = x > 9.0f ? 9.0f : x;
  x = x < -9.0f ? -9.0f : x;
  x2 = x * x;
  p = 9.9999990644e-01f
      + x2
          * (1.3373182780e-01f
              + x2
                  * (3.4865635566e-03f
                      + x2 * (2.0471504748e-05f + x2 * 1.3183727887e-08f)));
  q = 1.0f
      + x2
          * (4.6706479672e-01f
              + x2
                  * (2.5841911013e-02f
                      + x2 * (3.2713543599e-04f + x2 * 7.7024698437e-07f)));
  y = x * p / q;
  y = y > 1.0f ? 1.0f : y;
  return y < -1.0f ? -1.0f : y;
}

/* dsp_sigmoid: 1 / (1 + exp (-x)) as (1 + tanh (x / 2)) / 2, within 2e-7. */
static inline gfloat
dsp_sigmoid (gfloat x)
{
  return 0.5f + 0.5f * dsp_tanh (0.5f * x);
}

void dsp_activation_apply (DspActivation activation, gfloat *values,
    guint n_values);

const gchar *dsp_activation_name (DspActivation activation);

const gchar *dsp_weight_type_name (DspWeightType type);

void dsp_dense_forward (const DspDense *dense, const gfloat *input,
    gfloat *output, guint batch);

G_END_DECLS

#endif /* DSP_DENSE_H */
