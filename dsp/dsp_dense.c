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

#include "dsp/dsp_dense.h"

#define DSP_DOT_LANES 8

static inline gfloat
dot_lanes_sum (const gfloat *acc)
{
  return ((acc[0] + acc[4]) + (acc[1] + acc[5]))
      + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

static gfloat
dot_f32 (const gfloat *restrict w, const gfloat *restrict x, gsize n)
{
  gfloat acc[DSP_DOT_LANES] = { 0 };
  gfloat tail = 0.0f;
  gsize j, k;

  for (j = 0; j + DSP_DOT_LANES <= n; j += DSP_DOT_LANES) {
    for (k = 0; k < DSP_DOT_LANES; k++)
      acc[k] += w[j + k] * x[j + k];
  }
  for (; j < n; j++)
    tail += w[j] * x[j];

  return dot_lanes_sum (acc) + tail;
}

/* int8 weights are converted to float inside the loop and accumulated in
 * float; the row's scale is applied once to the sum. */
static gfloat
dot_s8 (const gint8 *restrict q, const gfloat *restrict x, gsize n)
{
  gfloat acc[DSP_DOT_LANES] = { 0 };
  gfloat tail = 0.0f;
  gsize j, k;

  for (j = 0; j + DSP_DOT_LANES <= n; j += DSP_DOT_LANES) {
    for (k = 0; k < DSP_DOT_LANES; k++)
      acc[k] += (gfloat) q[j + k] * x[j + k];
  }
  for (; j < n; j++)
    tail += (gfloat) q[j] * x[j];

  return dot_lanes_sum (acc) + tail;
}

/**
 * dsp_matrix_gemv:
 * @matrix: the weights, rows x cols.
 * @input: cols floats.
 * @bias: (nullable): rows floats added to the product, or %NULL.
 * @output: rows floats, written; must not overlap @input.
 *
 * Computes output = W input + bias for one vector. For int8 weights, each
 * row's dot product is accumulated in float and multiplied by the row's
 * scale. Never allocates; safe to call from several threads at once.
 */
void
dsp_matrix_gemv (const DspMatrix *matrix, const gfloat *input,
    const gfloat *bias, gfloat *output)
{
  guint r;
  guint cols = matrix->cols;

  if (matrix->type == DSP_WEIGHT_S8) {
    for (r = 0; r < matrix->rows; r++) {
      output[r] = dot_s8 (matrix->s8 + (gsize) r * cols, input, cols)
          * matrix->scale[r];
    }
  } else {
    for (r = 0; r < matrix->rows; r++)
      output[r] = dot_f32 (matrix->f32 + (gsize) r * cols, input, cols);
  }
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
      for (i = 0; i < n_values; i++)
        values[i] = tanhf (values[i]);
      break;
    case DSP_ACTIVATION_SIGMOID:
      for (i = 0; i < n_values; i++)
        values[i] = 1.0f / (1.0f + expf (-values[i]));
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
 * Returns: (transfer none): a static name ("f32", "int8"), or "unknown".
 */
const gchar *
dsp_weight_type_name (DspWeightType type)
{
  switch (type) {
    case DSP_WEIGHT_F32:
      return "f32";
    case DSP_WEIGHT_S8:
      return "int8";
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
