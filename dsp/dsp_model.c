/* rnndenoise — dsp: the network model and its forward pass
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A model comes from dsp_model_file.c and is immutable afterwards, so any
 * number of streams may run dsp_model_forward() on it at once, each with
 * its own hidden state and scratch memory.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp/dsp_model.h"
#include "dsp/dsp_model_private.h"

void
dsp_model_free (DspModel *model)
{
  guint i;

  for (i = 0; i < model->n_layers; i++)
    g_clear_pointer (&model->layers[i].cell, dsp_cell_free);
  g_free (model->data);
  g_free (model);
}

/**
 * dsp_model_ref:
 * @model: a model.
 *
 * Adds a reference; thread-safe.
 *
 * Returns: (transfer full): @model.
 */
DspModel *
dsp_model_ref (DspModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);

  g_atomic_int_inc (&model->ref_count);
  return model;
}

/**
 * dsp_model_unref:
 * @model: (nullable) (transfer full): a model.
 *
 * Drops a reference and frees the model with the last one; thread-safe.
 * Cells and views made from the model stay valid while a reference is held.
 */
void
dsp_model_unref (DspModel *model)
{
  if (model == NULL)
    return;
  if (g_atomic_int_dec_and_test (&model->ref_count))
    dsp_model_free (model);
}

/**
 * dsp_model_get_id:
 * @model: a model.
 *
 * Returns: the model identity: FNV-1a 64 of the file's bytes before its
 *   checksum. State snapshots carry it, so a state made by one model is not
 *   fed to another.
 */
guint64
dsp_model_get_id (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->id;
}

/**
 * dsp_model_get_checksum:
 * @model: a model.
 *
 * Returns: the file's CRC-32, which the loader verified.
 */
guint32
dsp_model_get_checksum (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->checksum;
}

/**
 * dsp_model_get_frame_config:
 * @model: a model.
 *
 * Returns: (transfer none): the validated frame configuration the model was
 *   trained with; valid while @model is.
 */
const DspFrameConfig *
dsp_model_get_frame_config (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, NULL);

  return &model->config;
}

/**
 * dsp_model_get_n_features:
 * @model: a model.
 *
 * Returns: the features of one frame: dsp_feature_layout_n_features() of
 *   the model's layout and bands. A row dsp_model_forward() reads holds
 *   1 + dsp_model_get_lookahead() frames of them.
 */
guint
dsp_model_get_n_features (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->n_features;
}

/**
 * dsp_model_get_lookahead:
 * @model: a model.
 *
 * Returns: the frames past the current one whose features the network
 *   reads, 0..DSP_MAX_LOOKAHEAD (0 for a model that reads its frame
 *   alone). A processor delays its output by as many hops more.
 */
guint
dsp_model_get_lookahead (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->lookahead;
}

/**
 * dsp_model_get_n_inputs:
 * @model: a model.
 *
 * Returns: values per batch row of the input dsp_model_forward() reads:
 *   dsp_model_get_n_features() x (1 + dsp_model_get_lookahead()).
 */
guint
dsp_model_get_n_inputs (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->n_inputs;
}

/**
 * dsp_model_get_format_version:
 * @model: a model.
 *
 * Returns: the version of the file @model was loaded from, 1 or 2
 *   (docs/model-format.md).
 */
guint
dsp_model_get_format_version (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->format_version;
}

/**
 * dsp_model_get_speech_protection:
 * @model: a model.
 *
 * The speech protection the network was tuned with: a network trained to
 * keep more of the voice on its own needs less of the processor's lift
 * (dsp_processor_set_speech_protection()) for the same trade-off between
 * speech kept and noise removed. A processor starts with it.
 *
 * Returns: the file's value, 0..DSP_MAX_SPEECH_PROTECTION, or
 *   DSP_DEFAULT_SPEECH_PROTECTION for a version 1 file, which has none.
 */
gfloat
dsp_model_get_speech_protection (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, DSP_DEFAULT_SPEECH_PROTECTION);

  return model->speech_protection;
}

/**
 * dsp_model_get_n_layers:
 * @model: a model.
 *
 * Returns: the number of layers (dense and GRU), 1..DSP_MODEL_MAX_LAYERS.
 */
guint
dsp_model_get_n_layers (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->n_layers;
}

/**
 * dsp_model_get_layer_info:
 * @model: a model.
 * @index: a layer, 0..n_layers - 1.
 * @info: (out caller-allocates): filled with the layer's description.
 *
 * Returns: TRUE, or FALSE (and @info untouched) if @index is out of range.
 */
gboolean
dsp_model_get_layer_info (const DspModel *model, guint index,
    DspLayerInfo *info)
{
  g_return_val_if_fail (model != NULL, FALSE);
  g_return_val_if_fail (info != NULL, FALSE);

  if (index >= model->n_layers)
    return FALSE;
  *info = model->layers[index].info;
  return TRUE;
}

/**
 * dsp_model_get_gain_layer:
 * @model: a model.
 *
 * Returns: the index of the dense layer whose n_bands sigmoid outputs are the
 *   band gains.
 */
guint
dsp_model_get_gain_layer (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->gain_layer;
}

/**
 * dsp_model_get_vad_layer:
 * @model: a model.
 *
 * Returns: the index of the dense layer whose single sigmoid output is the
 *   voice activity probability.
 */
guint
dsp_model_get_vad_layer (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->vad_layer;
}

/**
 * dsp_model_get_bin_layer:
 * @model: a model.
 *
 * Returns: the index of the dense layer whose linear outputs correct the
 *   gains of the first bins (a version 3 file's bin_layer), or 0 if the
 *   model has none.
 */
guint
dsp_model_get_bin_layer (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->bin_layer;
}

/**
 * dsp_model_get_n_bin_gains:
 * @model: a model.
 *
 * Returns: how many bins, from bin 0, the bin-gain head corrects (its
 *   outputs); 0 if the model has none.
 */
guint
dsp_model_get_n_bin_gains (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->n_bin_gains;
}

/**
 * dsp_model_get_bin_corrections:
 * @model: a model with a bin-gain head (dsp_model_get_n_bin_gains() > 0).
 * @scratch: the scratch the last dsp_model_forward() ran in.
 * @batch: the batch it ran.
 * @row: a row of that batch.
 *
 * The bin-gain head's outputs for @row, one logit correction per bin: the
 * processor gives bin k (k < dsp_model_get_n_bin_gains()) the gain
 * sigmoid (logit (g) + d[k]) where g is its band-interpolated gain
 * (docs/model-format.md). They live in @scratch, so they are valid until
 * @scratch is used again.
 *
 * Returns: (transfer none): dsp_model_get_n_bin_gains() floats, or %NULL
 *   for a model without the head.
 */
const gfloat *
dsp_model_get_bin_corrections (const DspModel *model, const gfloat *scratch,
    guint batch, guint row)
{
  const DspModelLayer *head;

  g_return_val_if_fail (model != NULL && scratch != NULL, NULL);
  g_return_val_if_fail (row < batch, NULL);

  if (model->bin_layer == 0)
    return NULL;
  head = &model->layers[model->bin_layer];
  return scratch + (gsize) batch * head->out_offset
      + (gsize) row * head->info.output_size;
}

/**
 * dsp_model_get_n_params:
 * @model: a model.
 *
 * Returns: the number of parameters: weights, biases and int8 row scales.
 */
gsize
dsp_model_get_n_params (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->n_params;
}

/**
 * dsp_model_get_n_gru_layers:
 * @model: a model.
 *
 * Returns: the number of GRU layers, 1..RNN_STATE_MAX_LAYERS: the layers of
 *   the recurrent state, in file order.
 */
guint
dsp_model_get_n_gru_layers (const DspModel *model)
{
  g_return_val_if_fail (model != NULL, 0);

  return model->n_gru;
}

/**
 * dsp_model_get_gru_hidden_size:
 * @model: a model.
 * @gru_index: a state layer, 0..n_gru_layers - 1.
 *
 * Returns: the hidden size of that GRU layer, or 0 if out of range.
 */
guint
dsp_model_get_gru_hidden_size (const DspModel *model, guint gru_index)
{
  g_return_val_if_fail (model != NULL, 0);
  g_return_val_if_fail (gru_index < model->n_gru, 0);

  return model->gru_hidden[gru_index];
}

/**
 * dsp_model_init_state_descriptor:
 * @model: a model.
 * @batch: rows per layer (channels), 1..RNN_STATE_MAX_BATCH.
 * @history_size: F32 values of the stream's DSP history.
 * @out: (out caller-allocates): the descriptor to fill.
 *
 * Describes the hidden state dsp_model_forward() reads and writes: the
 * model's id, cell GRU, forward, F32, one state layer per GRU layer (in
 * file order) with its hidden size, layer-major.
 */
void
dsp_model_init_state_descriptor (const DspModel *model, guint32 batch,
    guint32 history_size, RnnStateDescriptor *out)
{
  g_return_if_fail (model != NULL);
  g_return_if_fail (out != NULL);
  g_return_if_fail (batch >= 1 && batch <= RNN_STATE_MAX_BATCH);

  rnn_state_descriptor_init (out, model->id, RNN_STATE_CELL_GRU, batch,
      model->n_gru, model->gru_hidden, history_size);
}

/**
 * dsp_model_state_size:
 * @model: a model.
 * @batch: rows per layer.
 *
 * Returns: floats of hidden state for @batch rows: @batch times the sum of
 *   the GRU hidden sizes.
 */
gsize
dsp_model_state_size (const DspModel *model, guint batch)
{
  g_return_val_if_fail (model != NULL, 0);

  return (gsize) batch * model->hidden_per_row;
}

/**
 * dsp_model_scratch_size:
 * @model: a model.
 * @batch: rows.
 *
 * Returns: floats of scratch memory dsp_model_forward() needs for @batch
 *   rows: the dense layers' outputs plus the largest GRU's 6 x hidden size.
 *   Allocate it once per stream.
 */
gsize
dsp_model_scratch_size (const DspModel *model, guint batch)
{
  g_return_val_if_fail (model != NULL, 0);

  return (gsize) batch * model->dense_per_row + model->cell_scratch;
}

/* The output of layer `input - 1` (or the features) for all rows. */
static const gfloat *
layer_input (const DspModel *model, guint input, const gfloat *features,
    const gfloat *hidden, const gfloat *scratch, guint batch)
{
  const DspModelLayer *src;

  if (input == DSP_MODEL_INPUT_FEATURES)
    return features;
  src = &model->layers[input - 1];
  if (src->info.kind == DSP_LAYER_GRU)
    return hidden + (gsize) batch * src->out_offset;
  return scratch + (gsize) batch * src->out_offset;
}

/**
 * dsp_model_forward:
 * @model: a model.
 * @features: @batch x dsp_model_get_n_inputs() floats, row-major, one row
 *   per channel: the features of the frame, then (with lookahead) those of
 *   each of the next dsp_model_get_lookahead() frames in order.
 * @hidden: the recurrent state, dsp_model_state_size() floats laid out as
 *   dsp_model_init_state_descriptor() says (layer-major; layer l holds
 *   @batch rows of its hidden size): h(t-1) in, h(t) out.
 * @batch: rows.
 * @gains: @batch x n_bands floats, written: the band gains in 0..1.
 * @vad: @batch floats, written: the voice activity probability in 0..1.
 * @scratch: dsp_model_scratch_size (@model, @batch) floats.
 *
 * Runs the network for one frame: each layer in file order, a GRU updating
 * its rows of @hidden in place. Never allocates, never fails; several
 * threads may run it at once on one model with their own @hidden, @scratch
 * and outputs, with bit-identical results.
 */
void
dsp_model_forward (const DspModel *model, const gfloat *features,
    gfloat *hidden, guint batch, gfloat *gains, gfloat *vad, gfloat *scratch)
{
  const gfloat *out;
  gfloat *cell_scratch;
  guint i, b;

  g_return_if_fail (model != NULL);
  g_return_if_fail (features != NULL && hidden != NULL && scratch != NULL);
  g_return_if_fail (gains != NULL && vad != NULL);

  cell_scratch = scratch + (gsize) batch * model->dense_per_row;
  for (i = 0; i < model->n_layers; i++) {
    const DspModelLayer *layer = &model->layers[i];
    const gfloat *in = layer_input (model, layer->info.input, features, hidden,
        scratch, batch);

    if (layer->info.kind == DSP_LAYER_GRU) {
      dsp_cell_step (layer->cell, in,
          hidden + (gsize) batch * layer->out_offset, batch, cell_scratch);
    } else {
      dsp_dense_forward (&layer->dense, in,
          scratch + (gsize) batch * layer->out_offset, batch);
    }
  }

  out = scratch + (gsize) batch * model->layers[model->gain_layer].out_offset;
  memcpy (gains, out, (gsize) batch * model->config.n_bands * sizeof (gfloat));
  out = scratch + (gsize) batch * model->layers[model->vad_layer].out_offset;
  for (b = 0; b < batch; b++)
    vad[b] = out[b];
}

/**
 * dsp_layer_kind_name:
 * @kind: a layer kind.
 *
 * Returns: (transfer none): "dense", "gru" or "unknown".
 */
const gchar *
dsp_layer_kind_name (DspLayerKind kind)
{
  switch (kind) {
    case DSP_LAYER_DENSE:
      return "dense";
    case DSP_LAYER_GRU:
      return "gru";
    default:
      return "unknown";
  }
}
