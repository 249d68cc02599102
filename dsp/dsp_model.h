/* rnndenoise — dsp: the network model, its file format and forward pass
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#ifndef DSP_MODEL_H
#define DSP_MODEL_H

#include <glib.h>

#include "dsp/dsp_config.h"
#include "dsp/dsp_dense.h"
#include "state/rnn_state_descriptor.h"

G_BEGIN_DECLS

/* The model file format (docs/model-format.md). */
#define DSP_MODEL_MAGIC "RNDM"
/* The newest version this build reads; it reads 1 to 3. Version 2 adds the
 * network's speech protection after version 1's header, version 3 the
 * index of a bin-gain head after that. DSP_MODEL_HEADER_SIZE is version
 * 2's header. */
#define DSP_MODEL_FORMAT_VERSION 3
#define DSP_MODEL_HEADER_SIZE 52
#define DSP_MODEL_HEADER_SIZE_V1 48
#define DSP_MODEL_HEADER_SIZE_V3 56
#define DSP_MODEL_LAYER_RECORD_SIZE 48
#define DSP_MODEL_CHECKSUM_SIZE 4

/* Hard bounds on what a model file may ask for. */
#define DSP_MODEL_MAX_LAYERS 16
#define DSP_MODEL_MAX_LAYER_SIZE 1024
#define DSP_MODEL_MAX_FILE_SIZE (64u << 20)

/* Frames past the current one whose features the network may read (the
 * header's lookahead field); each adds one hop of latency. */
#define DSP_MAX_LOOKAHEAD 2

/* The speech protection (dsp_processor_set_speech_protection()) a
 * processor starts with when its model file names none (version 1), and
 * the largest a file may name. */
#define DSP_DEFAULT_SPEECH_PROTECTION 1.0f
#define DSP_MAX_SPEECH_PROTECTION 2.0f

/* The input field of a layer record: 0 reads the feature vector, k + 1
 * reads the output of layer k. */
#define DSP_MODEL_INPUT_FEATURES 0

/**
 * DspLayerKind:
 * @DSP_LAYER_DENSE: a dense layer with an activation.
 * @DSP_LAYER_GRU: a GRU layer (PyTorch equations); its output is its hidden
 *   state.
 *
 * The values are the ones stored in model files.
 */
typedef enum
{
  DSP_LAYER_DENSE = 1,
  DSP_LAYER_GRU = 2,
} DspLayerKind;

/**
 * DspLayerInfo:
 * @kind: dense or GRU.
 * @input: %DSP_MODEL_INPUT_FEATURES, or k + 1 for the output of layer k.
 * @input_size: values per batch row of the input.
 * @output_size: values per batch row of the output (hidden size for a GRU).
 * @activation: the dense layer's activation (%DSP_ACTIVATION_LINEAR for a
 *   GRU).
 * @weight_type: how the layer's weight matrices are stored.
 * @n_params: weights, biases and scales of the layer.
 * @state_layer: for a GRU, its layer index in the recurrent state; -1 for a
 *   dense layer.
 *
 * A description of one layer, for tools and tests.
 */
typedef struct
{
  DspLayerKind kind;
  guint input;
  guint input_size;
  guint output_size;
  DspActivation activation;
  DspWeightType weight_type;
  gsize n_params;
  gint state_layer;
} DspLayerInfo;

typedef struct _DspModel DspModel;

DspModel *dsp_model_new_from_bytes (GBytes *bytes, GError **error);

DspModel *dsp_model_new_from_file (const gchar *path, GError **error);

DspModel *dsp_model_ref (DspModel *model);

void dsp_model_unref (DspModel *model);

guint64 dsp_model_get_id (const DspModel *model);

guint32 dsp_model_get_checksum (const DspModel *model);

const DspFrameConfig *dsp_model_get_frame_config (const DspModel *model);

guint dsp_model_get_n_features (const DspModel *model);

guint dsp_model_get_lookahead (const DspModel *model);

guint dsp_model_get_n_inputs (const DspModel *model);

guint dsp_model_get_format_version (const DspModel *model);

gfloat dsp_model_get_speech_protection (const DspModel *model);

guint dsp_model_get_bin_layer (const DspModel *model);

guint dsp_model_get_n_bin_gains (const DspModel *model);

const gfloat *dsp_model_get_bin_corrections (const DspModel *model,
    const gfloat *scratch, guint batch, guint row);

guint dsp_model_get_n_layers (const DspModel *model);

gboolean dsp_model_get_layer_info (const DspModel *model, guint index,
    DspLayerInfo *info);

guint dsp_model_get_gain_layer (const DspModel *model);

guint dsp_model_get_vad_layer (const DspModel *model);

gsize dsp_model_get_n_params (const DspModel *model);

guint dsp_model_get_n_gru_layers (const DspModel *model);

guint dsp_model_get_gru_hidden_size (const DspModel *model, guint gru_index);

void dsp_model_init_state_descriptor (const DspModel *model, guint32 batch,
    guint32 history_size, RnnStateDescriptor *out);

gsize dsp_model_state_size (const DspModel *model, guint batch);

gsize dsp_model_scratch_size (const DspModel *model, guint batch);

void dsp_model_forward (const DspModel *model, const gfloat *features,
    gfloat *hidden, guint batch, gfloat *gains, gfloat *vad, gfloat *scratch);

const gchar *dsp_layer_kind_name (DspLayerKind kind);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (DspModel, dsp_model_unref)

G_END_DECLS

#endif /* DSP_MODEL_H */
