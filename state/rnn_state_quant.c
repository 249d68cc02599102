/* rnndenoise — state library: element-type conversion of state values
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "rnn_state_quant.h"

static inline gint32
quantize_value (gfloat value, gfloat scale, gint32 zero_point, gint32 q_min,
    gint32 q_max)
{
  gfloat q;

  /* NaN maps to the zero point; +-Inf saturate like any large value. */
  if (isnan (value))
    return zero_point;
  q = roundf (value / scale) + (gfloat) zero_point;
  if (q < (gfloat) q_min)
    return q_min;
  if (q > (gfloat) q_max)
    return q_max;
  return (gint32) q;
}

/**
 * rnn_state_quantize:
 * @desc: a validated descriptor naming the output element type and
 *   quantisation
 * @values: rnn_state_descriptor_n_values (@desc) F32 values, layer-major
 * @out: rnn_state_descriptor_hidden_bytes (@desc) bytes, in native byte
 *   order
 *
 * Converts F32 state values into @desc's element type: a copy for F32,
 * q = clamp (round (v / scale) + zero_point) per layer for S16 and S8.
 * The error is at most half a quantisation step inside the representable
 * range. Never allocates.
 */
void
rnn_state_quantize (const RnnStateDescriptor *desc, const gfloat *values,
    gpointer out)
{
  guint layer;
  gsize i, begin, end;

  if (desc->element_type == RNN_STATE_ELEMENT_F32) {
    memcpy (out, values,
        rnn_state_descriptor_n_values (desc) * sizeof (gfloat));
    return;
  }
  for (layer = 0; layer < desc->n_layers; layer++) {
    gfloat scale = desc->scale[layer];
    gint32 zp = desc->zero_point[layer];

    begin = rnn_state_descriptor_layer_offset (desc, layer);
    end = rnn_state_descriptor_layer_offset (desc, layer + 1);
    if (desc->element_type == RNN_STATE_ELEMENT_S16) {
      gint16 *q = out;
      for (i = begin; i < end; i++)
        q[i] = (gint16) quantize_value (values[i], scale, zp, G_MININT16,
            G_MAXINT16);
    } else {
      gint8 *q = out;
      for (i = begin; i < end; i++)
        q[i] = (gint8) quantize_value (values[i], scale, zp, G_MININT8,
            G_MAXINT8);
    }
  }
}

/**
 * rnn_state_dequantize:
 * @desc: a validated descriptor naming the input element type and
 *   quantisation
 * @in: rnn_state_descriptor_hidden_bytes (@desc) bytes, native byte order
 * @values: rnn_state_descriptor_n_values (@desc) F32 values, layer-major
 *
 * Converts state values of @desc's element type to F32:
 * v = (q - zero_point) * scale per layer. Never allocates.
 */
void
rnn_state_dequantize (const RnnStateDescriptor *desc, gconstpointer in,
    gfloat *values)
{
  guint layer;
  gsize i, begin, end;

  if (desc->element_type == RNN_STATE_ELEMENT_F32) {
    memcpy (values, in, rnn_state_descriptor_n_values (desc) * sizeof (gfloat));
    return;
  }
  for (layer = 0; layer < desc->n_layers; layer++) {
    gfloat scale = desc->scale[layer];
    gint32 zp = desc->zero_point[layer];

    begin = rnn_state_descriptor_layer_offset (desc, layer);
    end = rnn_state_descriptor_layer_offset (desc, layer + 1);
    if (desc->element_type == RNN_STATE_ELEMENT_S16) {
      const gint16 *q = in;
      for (i = begin; i < end; i++)
        values[i] = (gfloat) (q[i] - zp) * scale;
    } else {
      const gint8 *q = in;
      for (i = begin; i < end; i++)
        values[i] = (gfloat) (q[i] - zp) * scale;
    }
  }
}

/**
 * rnn_state_quant_step:
 * @desc: a validated descriptor
 * @layer: a layer index
 *
 * Returns: the value of one quantisation step of @layer (its scale), or 0
 * for F32.
 */
gfloat
rnn_state_quant_step (const RnnStateDescriptor *desc, guint layer)
{
  g_return_val_if_fail (layer < desc->n_layers, 0.0f);

  if (desc->element_type == RNN_STATE_ELEMENT_F32)
    return 0.0f;
  return desc->scale[layer];
}
