/* rnndenoise — state library: the descriptor of a recurrent state
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "rnn_state_descriptor.h"
#include "rnn_state_error.h"

/**
 * rnn_state_descriptor_init:
 * @desc: the descriptor to fill
 * @model_id: identity of the model the state belongs to
 * @cell: cell kind
 * @batch: rows per layer (one per audio channel)
 * @n_layers: recurrent layers, 1..RNN_STATE_MAX_LAYERS
 * @hidden: @n_layers hidden sizes
 * @history_size: F32 values of opaque DSP history
 *
 * Fills a forward, F32 descriptor of the current format version. Use
 * rnn_state_descriptor_set_element_type() for S16 or S8 and
 * rnn_state_descriptor_validate() to check the bounds.
 */
void
rnn_state_descriptor_init (RnnStateDescriptor *desc, guint64 model_id,
    RnnStateCellKind cell, guint32 batch, guint32 n_layers,
    const guint32 *hidden, guint32 history_size)
{
  guint i;

  g_return_if_fail (desc != NULL);
  g_return_if_fail (hidden != NULL || n_layers == 0);

  memset (desc, 0, sizeof (*desc));
  desc->format_version = RNN_STATE_FORMAT_VERSION;
  desc->model_id = model_id;
  desc->cell = cell;
  desc->direction = RNN_STATE_DIRECTION_FORWARD;
  desc->batch = batch;
  desc->n_layers = MIN (n_layers, RNN_STATE_MAX_LAYERS);
  for (i = 0; i < desc->n_layers; i++) {
    desc->hidden[i] = hidden[i];
    desc->scale[i] = 1.0f;
  }
  desc->element_type = RNN_STATE_ELEMENT_F32;
  desc->history_size = history_size;
  /* Keep an out-of-range count visible to validate () instead of hiding it. */
  if (n_layers > RNN_STATE_MAX_LAYERS)
    desc->n_layers = n_layers;
}

/**
 * rnn_state_descriptor_set_element_type:
 * @desc: the descriptor to change
 * @element_type: the new element type
 * @abs_max: the largest magnitude the quantised values must represent
 *   (1.0 for tanh-bounded GRU states); ignored for F32
 *
 * Sets the element type with a symmetric quantisation (zero point 0, scale
 * @abs_max / 127 for S8, @abs_max / 32767 for S16) on every layer.
 */
void
rnn_state_descriptor_set_element_type (RnnStateDescriptor *desc,
    RnnStateElementType element_type, gfloat abs_max)
{
  gfloat q_max;
  guint i;

  g_return_if_fail (desc != NULL);
  g_return_if_fail (abs_max > 0.0f);

  switch (element_type) {
    case RNN_STATE_ELEMENT_S16:
      q_max = 32767.0f;
      break;
    case RNN_STATE_ELEMENT_S8:
      q_max = 127.0f;
      break;
    default:
      q_max = 0.0f;
      break;
  }
  desc->element_type = element_type;
  for (i = 0; i < RNN_STATE_MAX_LAYERS; i++) {
    desc->scale[i] = q_max > 0.0f ? abs_max / q_max : 1.0f;
    desc->zero_point[i] = 0;
  }
}

/**
 * rnn_state_element_size:
 * @element_type: an element type
 *
 * Returns: bytes per value, or 0 for an unknown type.
 */
gsize
rnn_state_element_size (RnnStateElementType element_type)
{
  switch (element_type) {
    case RNN_STATE_ELEMENT_F32:
      return 4;
    case RNN_STATE_ELEMENT_S16:
      return 2;
    case RNN_STATE_ELEMENT_S8:
      return 1;
    default:
      return 0;
  }
}

/**
 * rnn_state_element_type_name:
 * @element_type: an element type
 *
 * Returns: (transfer none): "F32", "S16", "S8" or "unknown".
 */
const gchar *
rnn_state_element_type_name (RnnStateElementType element_type)
{
  switch (element_type) {
    case RNN_STATE_ELEMENT_F32:
      return "F32";
    case RNN_STATE_ELEMENT_S16:
      return "S16";
    case RNN_STATE_ELEMENT_S8:
      return "S8";
    default:
      return "unknown";
  }
}

/**
 * rnn_state_cell_kind_name:
 * @cell: a cell kind
 *
 * Returns: (transfer none): "teach", "gru" or "unknown".
 */
const gchar *
rnn_state_cell_kind_name (RnnStateCellKind cell)
{
  switch (cell) {
    case RNN_STATE_CELL_TEACH:
      return "teach";
    case RNN_STATE_CELL_GRU:
      return "gru";
    default:
      return "unknown";
  }
}

static const gchar *
direction_name (RnnStateDirection direction)
{
  switch (direction) {
    case RNN_STATE_DIRECTION_FORWARD:
      return "forward";
    case RNN_STATE_DIRECTION_BIDIRECTIONAL:
      return "bidirectional";
    default:
      return "unknown";
  }
}

static gboolean
validate_quantisation (const RnnStateDescriptor *desc, GError **error)
{
  gint32 zp_min, zp_max;
  guint i;

  if (desc->element_type == RNN_STATE_ELEMENT_F32)
    return TRUE;

  zp_max = desc->element_type == RNN_STATE_ELEMENT_S16 ? G_MAXINT16 : G_MAXINT8;
  zp_min = desc->element_type == RNN_STATE_ELEMENT_S16 ? G_MININT16 : G_MININT8;
  for (i = 0; i < desc->n_layers; i++) {
    if (!isfinite (desc->scale[i]) || desc->scale[i] <= 0.0f) {
      g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
          "scale of layer %u is %g, must be finite and positive", i,
          (gdouble) desc->scale[i]);
      return FALSE;
    }
    if (desc->zero_point[i] < zp_min || desc->zero_point[i] > zp_max) {
      g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
          "zero point of layer %u is %d, must be in %d..%d for %s", i,
          desc->zero_point[i], zp_min, zp_max,
          rnn_state_element_type_name (desc->element_type));
      return FALSE;
    }
  }
  return TRUE;
}

/**
 * rnn_state_descriptor_validate:
 * @desc: the descriptor to check
 * @error: return location for a #RNN_STATE_ERROR_INVALID error
 *
 * Checks every field against its bounds (RNN_STATE_MAX_*), so that the sizes
 * derived from a validated descriptor are bounded.
 *
 * Returns: TRUE if @desc is usable.
 */
gboolean
rnn_state_descriptor_validate (const RnnStateDescriptor *desc, GError **error)
{
  guint i;

  g_return_val_if_fail (desc != NULL, FALSE);

  if (desc->format_version != RNN_STATE_FORMAT_VERSION) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "format version %u, this library reads version %u",
        desc->format_version, RNN_STATE_FORMAT_VERSION);
    return FALSE;
  }
  if (desc->cell != RNN_STATE_CELL_TEACH && desc->cell != RNN_STATE_CELL_GRU) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "unknown cell kind %d", (gint) desc->cell);
    return FALSE;
  }
  if (desc->direction != RNN_STATE_DIRECTION_FORWARD
      && desc->direction != RNN_STATE_DIRECTION_BIDIRECTIONAL) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "unknown direction %d", (gint) desc->direction);
    return FALSE;
  }
  if (desc->batch < 1 || desc->batch > RNN_STATE_MAX_BATCH) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "batch %u, must be in 1..%u", desc->batch, RNN_STATE_MAX_BATCH);
    return FALSE;
  }
  if (desc->n_layers < 1 || desc->n_layers > RNN_STATE_MAX_LAYERS) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "layer count %u, must be in 1..%u", desc->n_layers,
        RNN_STATE_MAX_LAYERS);
    return FALSE;
  }
  for (i = 0; i < desc->n_layers; i++) {
    if (desc->hidden[i] < 1 || desc->hidden[i] > RNN_STATE_MAX_HIDDEN) {
      g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
          "hidden size of layer %u is %u, must be in 1..%u", i, desc->hidden[i],
          RNN_STATE_MAX_HIDDEN);
      return FALSE;
    }
  }
  if (rnn_state_element_size (desc->element_type) == 0) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "unknown element type %d", (gint) desc->element_type);
    return FALSE;
  }
  if (desc->history_size > RNN_STATE_MAX_HISTORY) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "DSP history of %u values, at most %u", desc->history_size,
        RNN_STATE_MAX_HISTORY);
    return FALSE;
  }
  return validate_quantisation (desc, error);
}

/**
 * rnn_state_descriptor_n_values:
 * @desc: a validated descriptor
 *
 * Returns: the number of values in the hidden section (batch x the sum of
 * the hidden sizes).
 */
gsize
rnn_state_descriptor_n_values (const RnnStateDescriptor *desc)
{
  return rnn_state_descriptor_layer_offset (desc, desc->n_layers);
}

/**
 * rnn_state_descriptor_layer_offset:
 * @desc: a validated descriptor
 * @layer: a layer index, 0..n_layers (n_layers gives the total)
 *
 * Returns: the offset, in values, of the first row of @layer in the
 * layer-major hidden section.
 */
gsize
rnn_state_descriptor_layer_offset (const RnnStateDescriptor *desc, guint layer)
{
  gsize offset = 0;
  guint i;

  g_return_val_if_fail (desc != NULL, 0);
  g_return_val_if_fail (layer <= desc->n_layers, 0);

  for (i = 0; i < layer && i < RNN_STATE_MAX_LAYERS; i++)
    offset += (gsize) desc->batch * desc->hidden[i];
  return offset;
}

/**
 * rnn_state_descriptor_hidden_bytes:
 * @desc: a validated descriptor
 *
 * Returns: the size in bytes of the hidden section in @desc's element type.
 */
gsize
rnn_state_descriptor_hidden_bytes (const RnnStateDescriptor *desc)
{
  return rnn_state_descriptor_n_values (desc)
      * rnn_state_element_size (desc->element_type);
}

/* Compares the fields that define the shape and meaning of the values,
 * in the order of the snapshot header, and names the first that differs. */
static gboolean
compare_shape (const RnnStateDescriptor *target,
    const RnnStateDescriptor *source, GError **error)
{
  guint i;

  if (source->format_version != target->format_version) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "format version %u, stream expects %u", source->format_version,
        target->format_version);
    return FALSE;
  }
  if (source->model_id != target->model_id) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "model id %016" G_GINT64_MODIFIER
        "x, stream expects %016" G_GINT64_MODIFIER "x",
        source->model_id, target->model_id);
    return FALSE;
  }
  if (source->cell != target->cell) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "cell kind %s, stream expects %s",
        rnn_state_cell_kind_name (source->cell),
        rnn_state_cell_kind_name (target->cell));
    return FALSE;
  }
  if (source->batch != target->batch) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "batch %u, stream expects %u", source->batch, target->batch);
    return FALSE;
  }
  if (source->n_layers != target->n_layers) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "layer count %u, stream expects %u", source->n_layers,
        target->n_layers);
    return FALSE;
  }
  for (i = 0; i < target->n_layers && i < RNN_STATE_MAX_LAYERS; i++) {
    if (source->hidden[i] != target->hidden[i]) {
      g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
          "hidden size of layer %u is %u, stream expects %u", i,
          source->hidden[i], target->hidden[i]);
      return FALSE;
    }
  }
  if (source->history_size != target->history_size) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "DSP history size %u, stream expects %u", source->history_size,
        target->history_size);
    return FALSE;
  }
  return TRUE;
}

/**
 * rnn_state_descriptor_check_layout:
 * @target: the descriptor of the stream that would receive the state
 * @source: the descriptor of the state offered
 * @error: return location for a #RNN_STATE_ERROR_MISMATCH or
 *   #RNN_STATE_ERROR_UNSUPPORTED error naming the first differing field
 *
 * Checks that a state described by @source can seed @target: a forward
 * direction (a bidirectional state never seeds a streaming recurrence), then
 * the same format version, model id, cell kind, batch, layer count, hidden
 * sizes and DSP history size. Element type and quantisation may differ:
 * values are rescaled. Equal byte sizes are never taken as enough.
 *
 * Returns: TRUE if the layouts match.
 */
gboolean
rnn_state_descriptor_check_layout (const RnnStateDescriptor *target,
    const RnnStateDescriptor *source, GError **error)
{
  g_return_val_if_fail (target != NULL && source != NULL, FALSE);

  if (source->direction != RNN_STATE_DIRECTION_FORWARD
      || target->direction != RNN_STATE_DIRECTION_FORWARD) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_UNSUPPORTED,
        "direction %s, stream expects %s: a bidirectional state cannot seed "
        "a streaming recurrence",
        direction_name (source->direction), direction_name (target->direction));
    return FALSE;
  }
  return compare_shape (target, source, error);
}

/**
 * rnn_state_descriptor_equal:
 * @a: a descriptor
 * @b: another descriptor
 * @error: return location for a #RNN_STATE_ERROR_MISMATCH error naming the
 *   first differing field and both values
 *
 * Compares every field, element type and quantisation included.
 *
 * Returns: TRUE if @a and @b describe the same state format.
 */
gboolean
rnn_state_descriptor_equal (const RnnStateDescriptor *a,
    const RnnStateDescriptor *b, GError **error)
{
  guint i;

  g_return_val_if_fail (a != NULL && b != NULL, FALSE);

  if (a->direction != b->direction) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "direction %s, other is %s", direction_name (a->direction),
        direction_name (b->direction));
    return FALSE;
  }
  if (!compare_shape (b, a, error))
    return FALSE;
  if (a->element_type != b->element_type) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
        "element type %s, other is %s",
        rnn_state_element_type_name (a->element_type),
        rnn_state_element_type_name (b->element_type));
    return FALSE;
  }
  if (a->element_type == RNN_STATE_ELEMENT_F32)
    return TRUE;
  for (i = 0; i < a->n_layers && i < RNN_STATE_MAX_LAYERS; i++) {
    if (a->scale[i] != b->scale[i]) {
      g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
          "scale of layer %u is %g, other is %g", i, (gdouble) a->scale[i],
          (gdouble) b->scale[i]);
      return FALSE;
    }
    if (a->zero_point[i] != b->zero_point[i]) {
      g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_MISMATCH,
          "zero point of layer %u is %d, other is %d", i, a->zero_point[i],
          b->zero_point[i]);
      return FALSE;
    }
  }
  return TRUE;
}
