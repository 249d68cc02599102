/* rnndenoise — dsp: the model file loader
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The file format is described in docs/model-format.md. The loader reads
 * each field little-endian from the bytes, checks it against its bounds and
 * the bytes left before using it, and only then allocates: at most the size
 * of the file's data section, in one block that holds every weight in host
 * order.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include <glib/gstdio.h>

#include "dsp/dsp_error.h"
#include "dsp/dsp_frame_config.h"
#include "dsp/dsp_gru.h"
#include "dsp/dsp_model.h"
#include "dsp/dsp_model_private.h"
#include "state/rnn_state_bytes.h"

/* An int8x8 matrix quantises its inputs into a buffer of this size. */
G_STATIC_ASSERT (DSP_MODEL_MAX_LAYER_SIZE <= DSP_MATRIX_MAX_S8X8_COLS);

/* A cursor over the file's bytes. */
typedef struct
{
  const guint8 *data;
  gsize size;
} Reader;

/* The blobs of one layer as the file's record gives them. */
enum
{
  BLOB_WEIGHTS,
  BLOB_BIAS,
  BLOB_SCALES,
  N_BLOBS
};

static const gchar *const blob_names[N_BLOBS] = { "weights", "bias", "scales" };

typedef struct
{
  guint32 offset;
  guint32 size;
} Blob;

typedef struct
{
  DspLayerInfo info;
  Blob blobs[N_BLOBS];
  guint64 weight_rows;   /* rows of all weight matrices together */
  guint64 weight_values; /* values of all weight matrices together */
  guint64 n_bias;
} LayerRecord;

/* What a layer's input_size must be: a row of the feature rows (the
 * frame's features and those of the frames read ahead) or the output of
 * the layer it reads. */
typedef struct
{
  guint n_features; /* per frame */
  guint lookahead;
  const guint *output_sizes; /* of the layers before */
} LayerInputs;

static guint
expected_input_size (const LayerInputs *inputs, guint32 input)
{
  if (input == DSP_MODEL_INPUT_FEATURES)
    return inputs->n_features * (1 + inputs->lookahead);
  return inputs->output_sizes[input - 1];
}

static void
set_input_size_error (const LayerInputs *inputs, guint index, guint32 input,
    guint32 in_size, GError **error)
{
  guint expect = expected_input_size (inputs, input);

  if (input != DSP_MODEL_INPUT_FEATURES)
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: input_size %u, its input layer %u outputs %u", index,
        in_size, input - 1, expect);
  else if (inputs->lookahead == 0)
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: input_size %u, the feature vector has %u values", index,
        in_size, expect);
  else
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: input_size %u, lookahead %u gives feature rows of %u "
        "frames x %u features = %u values",
        index, in_size, inputs->lookahead, 1 + inputs->lookahead,
        inputs->n_features, expect);
}

/* Checks a record's sizes, activation and weight type; its kind and input
 * are checked already. */
static gboolean
check_layer_fields (guint index, guint32 kind, guint32 input, guint32 in_size,
    guint32 out_size, guint32 activation, guint32 weight_type,
    const LayerInputs *inputs, GError **error)
{
  if (in_size < 1 || in_size > DSP_MODEL_MAX_LAYER_SIZE) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: input_size %u is outside 1..%u", index, in_size,
        DSP_MODEL_MAX_LAYER_SIZE);
    return FALSE;
  }
  if (out_size < 1 || out_size > DSP_MODEL_MAX_LAYER_SIZE) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: output_size %u is outside 1..%u", index, out_size,
        DSP_MODEL_MAX_LAYER_SIZE);
    return FALSE;
  }
  if (in_size != expected_input_size (inputs, input)) {
    set_input_size_error (inputs, index, input, in_size, error);
    return FALSE;
  }
  if (activation > DSP_ACTIVATION_LAST
      || (kind == DSP_LAYER_GRU && activation != DSP_ACTIVATION_LINEAR)) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "layer %u: activation %u is not supported for a %s layer", index,
        activation, dsp_layer_kind_name (kind));
    return FALSE;
  }
  if (weight_type > DSP_WEIGHT_LAST) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "layer %u: weight type %u is unknown (0 = f32, 1 = int8, "
        "2 = int8x8)",
        index, weight_type);
    return FALSE;
  }
  return TRUE;
}

/* Fills the value counts of a checked record and the byte size each of its
 * blobs must have. */
static void
layer_sizes (LayerRecord *rec, guint64 expected[N_BLOBS])
{
  guint64 in_size = rec->info.input_size, out_size = rec->info.output_size;
  gboolean s8 = dsp_weight_type_is_s8 (rec->info.weight_type);

  if (rec->info.kind == DSP_LAYER_GRU) {
    rec->weight_rows = 6 * out_size;
    rec->weight_values = 3 * out_size * (in_size + out_size);
    rec->n_bias = 6 * out_size;
  } else {
    rec->weight_rows = out_size;
    rec->weight_values = out_size * in_size;
    rec->n_bias = out_size;
  }
  expected[BLOB_WEIGHTS] = rec->weight_values * (s8 ? 1 : 4);
  expected[BLOB_BIAS] = 4 * rec->n_bias;
  expected[BLOB_SCALES] = s8 ? 4 * rec->weight_rows : 0;
  rec->info.n_params
      = rec->weight_values + rec->n_bias + (s8 ? rec->weight_rows : 0);
}

/* Reads blob @i of the record at @at and checks its size against
 * @expected and its bounds against the data section. */
static gboolean
parse_blob (const Reader *rd, gsize at, guint index, guint i, LayerRecord *rec,
    guint64 expected, gsize data_start, gsize data_end, GError **error)
{
  Blob *blob = &rec->blobs[i];
  DspWeightType weight_type = rec->info.weight_type;
  gboolean is_float = i != BLOB_WEIGHTS || weight_type == DSP_WEIGHT_F32;

  blob->offset = rnn_state_get_u32 (rd->data + at + 24 + 8 * i);
  blob->size = rnn_state_get_u32 (rd->data + at + 28 + 8 * i);
  if (blob->size != expected) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: %s size %u bytes, %s %u x %u %s expects "
        "%" G_GUINT64_FORMAT,
        index, blob_names[i], blob->size, dsp_layer_kind_name (rec->info.kind),
        rec->info.output_size, rec->info.input_size,
        dsp_weight_type_name (weight_type), expected);
    return FALSE;
  }
  if (blob->size == 0) {
    if (blob->offset != 0) {
      g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
          "layer %u: %s offset %u for an empty blob, expected 0", index,
          blob_names[i], blob->offset);
      return FALSE;
    }
    return TRUE;
  }
  if (blob->offset < data_start
      || (guint64) blob->offset + blob->size > data_end) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: %s at offset %u, %u bytes, lies outside the data "
        "section %" G_GSIZE_FORMAT "..%" G_GSIZE_FORMAT,
        index, blob_names[i], blob->offset, blob->size, data_start, data_end);
    return FALSE;
  }
  if (is_float && blob->offset % 4 != 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: %s offset %u is not a multiple of 4", index, blob_names[i],
        blob->offset);
    return FALSE;
  }
  return TRUE;
}

/* int8x8 weights quantise their inputs over [-1, 1] (dsp_dense.h), so
 * they may only read values bounded by ±1: a GRU's hidden state, or a dense
 * layer's tanh or sigmoid outputs; never the raw features. (A GRU's own
 * recurrent matrix reads its hidden state, which always is.) */
static gboolean
check_s8x8_input (const LayerRecord *recs, const LayerRecord *rec, guint index,
    GError **error)
{
  const DspLayerInfo *src;

  if (rec->info.weight_type != DSP_WEIGHT_S8X8)
    return TRUE;
  if (rec->info.input == DSP_MODEL_INPUT_FEATURES) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: int8x8 weights need inputs bounded by 1 (a GRU, or a "
        "tanh or sigmoid layer), not the features",
        index);
    return FALSE;
  }
  src = &recs[rec->info.input - 1].info;
  if (src->kind == DSP_LAYER_GRU || src->activation == DSP_ACTIVATION_TANH
      || src->activation == DSP_ACTIVATION_SIGMOID)
    return TRUE;
  g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
      "layer %u: int8x8 weights need inputs bounded by 1 (a GRU, or a tanh "
      "or sigmoid layer), not layer %u's %s outputs",
      index, rec->info.input - 1, dsp_activation_name (src->activation));
  return FALSE;
}

/* Checks one record's fields and sizes; fills rec. */
static gboolean
parse_layer (const Reader *rd, gsize at, guint index, gsize data_start,
    gsize data_end, const LayerInputs *inputs, LayerRecord *rec, GError **error)
{
  guint32 kind = rnn_state_get_u32 (rd->data + at);
  guint32 input = rnn_state_get_u32 (rd->data + at + 4);
  guint32 in_size = rnn_state_get_u32 (rd->data + at + 8);
  guint32 out_size = rnn_state_get_u32 (rd->data + at + 12);
  guint32 activation = rnn_state_get_u32 (rd->data + at + 16);
  guint32 weight_type = rnn_state_get_u32 (rd->data + at + 20);
  guint64 expected[N_BLOBS];
  guint i;

  memset (rec, 0, sizeof (*rec));
  if (kind != DSP_LAYER_DENSE && kind != DSP_LAYER_GRU) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "layer %u: kind %u is unknown (1 = dense, 2 = GRU)", index, kind);
    return FALSE;
  }
  if (input > index) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer %u: input %u does not name the features (0) or an earlier "
        "layer (1..%u)",
        index, input, index);
    return FALSE;
  }
  if (!check_layer_fields (index, kind, input, in_size, out_size, activation,
          weight_type, inputs, error))
    return FALSE;

  rec->info.kind = kind;
  rec->info.input = input;
  rec->info.input_size = in_size;
  rec->info.output_size = out_size;
  rec->info.activation = activation;
  rec->info.weight_type = weight_type;
  rec->info.state_layer = -1;
  layer_sizes (rec, expected);
  for (i = 0; i < N_BLOBS; i++)
    if (!parse_blob (rd, at, index, i, rec, expected[i], data_start, data_end,
            error))
      return FALSE;
  return TRUE;
}

/* Copies n little-endian floats from the file to dst, refusing non-finite
 * values. */
static gboolean
copy_floats (const Reader *rd, guint32 offset, gsize n, gfloat *dst,
    guint index, const gchar *what, GError **error)
{
  gsize i;

  for (i = 0; i < n; i++) {
    guint32 bits = rnn_state_get_u32 (rd->data + offset + 4 * i);
    gfloat v;

    memcpy (&v, &bits, 4);
    if (!isfinite (v)) {
      g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
          "layer %u: %s value %" G_GSIZE_FORMAT " is not finite", index, what,
          i);
      return FALSE;
    }
    dst[i] = v;
  }
  return TRUE;
}

static void
init_matrix (DspMatrix *m, DspWeightType type, guint rows, guint cols,
    const gfloat *f32, const gint8 *s8, const gfloat *scale)
{
  m->type = type;
  m->rows = rows;
  m->cols = cols;
  m->f32 = type == DSP_WEIGHT_F32 ? f32 : NULL;
  m->s8 = dsp_weight_type_is_s8 (type) ? s8 : NULL;
  m->scale = dsp_weight_type_is_s8 (type) ? scale : NULL;
  m->packed = NULL;
  m->packed_sign_safe = FALSE;
}

/* Where the next layer's arrays go in the model's weight block. */
typedef struct
{
  gfloat *floats;
  gint8 *s8;
  guint8 *packed;
} WeightCursor;

/* Lays @m out for the vector kernels at @at's next bytes, if this CPU has
 * them (the view then points there too). */
static void
pack_matrix (DspMatrix *m, WeightCursor *at)
{
  gsize size = dsp_matrix_packed_size (m->type, m->rows, m->cols);

  if (size == 0)
    return;
  dsp_matrix_pack (m, at->packed);
  at->packed += size;
}

/* Copies a checked layer's blobs into the model's block and makes its views
 * (and cell). @at advances past what the layer used. */
static gboolean
load_layer (DspModel *model, const Reader *rd, const LayerRecord *rec,
    guint index, WeightCursor *at, GError **error)
{
  DspModelLayer *layer = &model->layers[index];
  guint n_in = rec->info.input_size;
  guint n_out = rec->info.output_size;
  DspWeightType wt = rec->info.weight_type;
  gfloat *weights_f32 = NULL, *bias, *scales = NULL;
  gint8 *weights_s8 = NULL;

  layer->info = rec->info;

  if (dsp_weight_type_is_s8 (wt)) {
    weights_s8 = at->s8;
    memcpy (weights_s8, rd->data + rec->blobs[BLOB_WEIGHTS].offset,
        rec->weight_values);
    at->s8 += rec->weight_values;
    scales = at->floats;
    if (!copy_floats (rd, rec->blobs[BLOB_SCALES].offset, rec->weight_rows,
            scales, index, "scales", error))
      return FALSE;
    at->floats += rec->weight_rows;
  } else {
    weights_f32 = at->floats;
    if (!copy_floats (rd, rec->blobs[BLOB_WEIGHTS].offset, rec->weight_values,
            weights_f32, index, "weights", error))
      return FALSE;
    at->floats += rec->weight_values;
  }
  bias = at->floats;
  if (!copy_floats (rd, rec->blobs[BLOB_BIAS].offset, rec->n_bias, bias, index,
          "bias", error))
    return FALSE;
  at->floats += rec->n_bias;

  if (rec->info.kind == DSP_LAYER_DENSE) {
    layer->dense.input_size = n_in;
    layer->dense.output_size = n_out;
    layer->dense.activation = rec->info.activation;
    init_matrix (&layer->dense.weights, wt, n_out, n_in, weights_f32,
        weights_s8, scales);
    pack_matrix (&layer->dense.weights, at);
    layer->dense.bias = bias;
  } else {
    gsize ih_values = 3 * (gsize) n_out * n_in;

    layer->gru.input_size = n_in;
    layer->gru.hidden_size = n_out;
    init_matrix (&layer->gru.w_ih, wt, 3 * n_out, n_in, weights_f32, weights_s8,
        scales);
    init_matrix (&layer->gru.w_hh, wt, 3 * n_out, n_out,
        weights_f32 ? weights_f32 + ih_values : NULL,
        weights_s8 ? weights_s8 + ih_values : NULL,
        scales ? scales + 3 * n_out : NULL);
    layer->gru.b_ih = bias;
    layer->gru.b_hh = bias + 3 * n_out;
    pack_matrix (&layer->gru.w_ih, at);
    pack_matrix (&layer->gru.w_hh, at);
    /* After the packing: the cell copies the views. */
    layer->cell = dsp_gru_new (&layer->gru);
  }
  return TRUE;
}

static gboolean
check_head (const DspModel *model, guint index, const gchar *what,
    guint n_outputs, GError **error)
{
  const DspLayerInfo *info;

  if (index >= model->n_layers) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "%s_layer %u, the model has %u layers", what, index, model->n_layers);
    return FALSE;
  }
  info = &model->layers[index].info;
  if (info->kind != DSP_LAYER_DENSE
      || info->activation != DSP_ACTIVATION_SIGMOID
      || info->output_size != n_outputs) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "%s_layer %u is a %s layer with %u %s outputs, expected a dense "
        "layer with %u sigmoid outputs",
        what, index, dsp_layer_kind_name (info->kind), info->output_size,
        dsp_activation_name (info->activation), n_outputs);
    return FALSE;
  }
  return TRUE;
}

/* The header's length in a file of @version (1, 2 or 3). */
static gsize
header_size (guint32 version)
{
  if (version == 1)
    return DSP_MODEL_HEADER_SIZE_V1;
  return version == 2 ? DSP_MODEL_HEADER_SIZE : DSP_MODEL_HEADER_SIZE_V3;
}

/* Checks a version 3 file's bin-gain head: 0 (none), or a dense layer
 * with linear outputs, one per bin from bin 0, at most every bin, that is
 * neither of the other heads and reads a layer (not the features). */
static gboolean
check_bin_head (const DspModel *model, GError **error)
{
  const DspLayerInfo *info;
  guint n_bins = model->config.window / 2 + 1;

  if (model->bin_layer == 0)
    return TRUE;
  if (model->bin_layer >= model->n_layers) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "bin_layer %u, the model has %u layers", model->bin_layer,
        model->n_layers);
    return FALSE;
  }
  info = &model->layers[model->bin_layer].info;
  if (model->bin_layer == model->gain_layer
      || model->bin_layer == model->vad_layer || info->kind != DSP_LAYER_DENSE
      || info->activation != DSP_ACTIVATION_LINEAR
      || info->input == DSP_MODEL_INPUT_FEATURES
      || info->output_size > n_bins) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "bin_layer %u is a %s layer with %u %s outputs reading input %u, "
        "expected a dense layer of its own with 1..%u linear outputs "
        "reading a layer",
        model->bin_layer, dsp_layer_kind_name (info->kind), info->output_size,
        dsp_activation_name (info->activation), info->input, n_bins);
    return FALSE;
  }
  return TRUE;
}

/* Checks the file as a whole: size, magic, version, the size field and the
 * checksum. Sets @version, @data_end (where the checksum starts) and
 * @crc. */
static gboolean
check_file (const Reader *rd, guint32 *version, gsize *data_end, guint32 *crc,
    GError **error)
{
  guint32 file_size, stored_crc;

  if (rd->size < DSP_MODEL_HEADER_SIZE_V1 + DSP_MODEL_CHECKSUM_SIZE) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "model is %" G_GSIZE_FORMAT " bytes, shorter than the %u-byte "
        "header and checksum",
        rd->size, DSP_MODEL_HEADER_SIZE_V1 + DSP_MODEL_CHECKSUM_SIZE);
    return FALSE;
  }
  if (memcmp (rd->data, DSP_MODEL_MAGIC, 4) != 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "bad magic %02x %02x %02x %02x, expected \"%s\": not a model file",
        rd->data[0], rd->data[1], rd->data[2], rd->data[3], DSP_MODEL_MAGIC);
    return FALSE;
  }
  *version = rnn_state_get_u32 (rd->data + 4);
  if (*version < 1 || *version > DSP_MODEL_FORMAT_VERSION) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "model format version %u, this build reads versions 1..%u", *version,
        DSP_MODEL_FORMAT_VERSION);
    return FALSE;
  }
  file_size = rnn_state_get_u32 (rd->data + 8);
  if (file_size != rd->size) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "file_size field says %u bytes, the model has %" G_GSIZE_FORMAT
        " (truncated or padded)",
        file_size, rd->size);
    return FALSE;
  }
  *data_end = rd->size - DSP_MODEL_CHECKSUM_SIZE;
  stored_crc = rnn_state_get_u32 (rd->data + *data_end);
  *crc = rnn_state_crc32 (rd->data, *data_end);
  if (*crc != stored_crc) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "checksum mismatch: stored CRC-32 %08x, computed %08x", stored_crc,
        *crc);
    return FALSE;
  }
  if (*data_end < header_size (*version)) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "model is %" G_GSIZE_FORMAT " bytes, shorter than the %" G_GSIZE_FORMAT
        "-byte header of version %u and its checksum",
        rd->size, header_size (*version) + DSP_MODEL_CHECKSUM_SIZE, *version);
    return FALSE;
  }
  return TRUE;
}

/* Reads the speech protection of a version 2 header (version 1 files name
 * none: the default); it must be one the processor takes. */
static gboolean
parse_speech_protection (const Reader *rd, guint32 version, gfloat *protection,
    GError **error)
{
  if (version == 1) {
    *protection = DSP_DEFAULT_SPEECH_PROTECTION;
    return TRUE;
  }
  *protection = rnn_state_get_f32 (rd->data + DSP_MODEL_HEADER_SIZE_V1);
  if (!(*protection >= 0.0f && *protection <= DSP_MAX_SPEECH_PROTECTION)) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "speech_protection %g is outside 0..%g", (gdouble) *protection,
        (gdouble) DSP_MAX_SPEECH_PROTECTION);
    return FALSE;
  }
  return TRUE;
}

/* Where the layer table lies, and how many records it holds. */
typedef struct
{
  guint32 version;
  guint32 n_layers;
  gsize table_start;
  gsize table_end;
  gsize data_end;
} LayerTable;

/* Reads and checks the header's frame configuration, its lookahead and
 * the bounds of the layer table after the band edges. */
static gboolean
parse_header (const Reader *rd, DspFrameConfig *cfg, guint *lookahead,
    LayerTable *table, GError **error)
{
  guint32 ahead;
  guint i;

  memset (cfg, 0, sizeof (*cfg));
  cfg->sample_rate = rnn_state_get_u32 (rd->data + 12);
  cfg->hop = rnn_state_get_u32 (rd->data + 16);
  cfg->window = rnn_state_get_u32 (rd->data + 20);
  cfg->n_bands = rnn_state_get_u32 (rd->data + 24);
  cfg->feature_layout_id = rnn_state_get_u32 (rd->data + 28);
  table->n_layers = rnn_state_get_u32 (rd->data + 32);
  ahead = rnn_state_get_u32 (rd->data + 44);

  if (cfg->n_bands < 1 || cfg->n_bands > DSP_MAX_BANDS) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "n_bands %u is outside 1..%u", cfg->n_bands, DSP_MAX_BANDS);
    return FALSE;
  }
  if (table->n_layers < 1 || table->n_layers > DSP_MODEL_MAX_LAYERS) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "n_layers %u is outside 1..%u", table->n_layers, DSP_MODEL_MAX_LAYERS);
    return FALSE;
  }
  /* Files written before the field existed hold 0 there: no lookahead. */
  if (ahead > DSP_MAX_LOOKAHEAD) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "lookahead %u is outside 0..%u (frames the network reads ahead)", ahead,
        DSP_MAX_LOOKAHEAD);
    return FALSE;
  }
  *lookahead = ahead;
  table->table_start = header_size (table->version)
      + ((2 * (gsize) (cfg->n_bands + 1) + 3) & ~(gsize) 3);
  table->table_end = table->table_start
      + (gsize) table->n_layers * DSP_MODEL_LAYER_RECORD_SIZE;
  if (table->table_end > table->data_end) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "band edges and %u layer records need %" G_GSIZE_FORMAT
        " bytes, the model has %" G_GSIZE_FORMAT " before its checksum",
        table->n_layers, table->table_end, table->data_end);
    return FALSE;
  }
  for (i = 0; i <= cfg->n_bands; i++)
    cfg->band_edges[i]
        = rnn_state_get_u16 (rd->data + header_size (table->version) + 2 * i);
  return TRUE;
}

/* Checks the frame configuration and its feature layout. */
static gboolean
check_frame_config (const DspFrameConfig *cfg, GError **error)
{
  if (dsp_feature_layout_n_features (cfg->feature_layout_id, cfg->n_bands)
      == 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_UNSUPPORTED,
        "feature_layout_id %u is unknown (this build has %u)",
        cfg->feature_layout_id, DSP_FEATURE_LAYOUT_CEPSTRUM_V1);
    return FALSE;
  }
  if (!dsp_frame_config_validate (cfg, error)) {
    g_prefix_error (error, "model frame configuration: ");
    return FALSE;
  }
  return TRUE;
}

/* Value counts of the weight block: floats, then int8 values, then the
 * int8x8 weights again in the vector kernels' packed layout (none where
 * the CPU has no AVX2). */
typedef struct
{
  guint64 n_floats;
  guint64 n_s8;
  guint64 n_packed;
} WeightCounts;

/* The bytes the packed layout of a layer's matrices takes (a GRU has two:
 * its input and its recurrent weights). */
static gsize
layer_packed_size (const DspLayerInfo *info)
{
  guint n_out = info->output_size;

  if (info->kind == DSP_LAYER_DENSE)
    return dsp_matrix_packed_size (info->weight_type, n_out, info->input_size);
  return dsp_matrix_packed_size (info->weight_type, 3 * n_out, info->input_size)
      + dsp_matrix_packed_size (info->weight_type, 3 * n_out, n_out);
}

/* Checks every record (sizes, chaining, blob bounds) before any
 * allocation that depends on them; numbers the GRU layers. */
static gboolean
parse_records (DspModel *model, const Reader *rd, const LayerTable *table,
    LayerRecord *recs, WeightCounts *counts, GError **error)
{
  guint output_sizes[DSP_MODEL_MAX_LAYERS];
  LayerInputs inputs = { model->n_features, model->lookahead, output_sizes };
  guint64 blob_bytes = 0;
  guint i;

  for (i = 0; i < table->n_layers; i++) {
    LayerRecord *rec = &recs[i];

    if (!parse_layer (rd, table->table_start + i * DSP_MODEL_LAYER_RECORD_SIZE,
            i, table->table_end, table->data_end, &inputs, rec, error)
        || !check_s8x8_input (recs, rec, i, error))
      return FALSE;
    output_sizes[i] = rec->info.output_size;
    if (rec->info.kind == DSP_LAYER_GRU) {
      if (model->n_gru == RNN_STATE_MAX_LAYERS) {
        g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
            "layer %u: more than %u GRU layers", i, RNN_STATE_MAX_LAYERS);
        return FALSE;
      }
      rec->info.state_layer = model->n_gru;
      model->gru_hidden[model->n_gru++] = rec->info.output_size;
    }
    counts->n_floats += rec->n_bias;
    counts->n_packed += layer_packed_size (&rec->info);
    if (dsp_weight_type_is_s8 (rec->info.weight_type)) {
      counts->n_s8 += rec->weight_values;
      counts->n_floats += rec->weight_rows;
    } else {
      counts->n_floats += rec->weight_values;
    }
    blob_bytes += (guint64) rec->blobs[BLOB_WEIGHTS].size
        + rec->blobs[BLOB_BIAS].size + rec->blobs[BLOB_SCALES].size;
    model->n_params += rec->info.n_params;
  }
  model->n_layers = table->n_layers;
  if (model->n_gru == 0) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "the model has no GRU layer");
    return FALSE;
  }
  /* Overlapping blobs could make the weights larger than the file; the
   * allocation is never more than the data section, plus the packed
   * layout's copy of the int8x8 weights (their size, padded, and a sum per
   * row). */
  if (blob_bytes > table->data_end - table->table_end) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "layer blobs total %" G_GUINT64_FORMAT " bytes, the data section "
        "holds %" G_GSIZE_FORMAT,
        blob_bytes, table->data_end - table->table_end);
    return FALSE;
  }
  return TRUE;
}

/* Allocates the weight block and copies every layer's blobs into it. */
static gboolean
load_weights (DspModel *model, const Reader *rd, const LayerRecord *recs,
    const WeightCounts *counts, GError **error)
{
  /* The packed copies start at the next multiple of 32 bytes after the
   * int8 values: their per-row sums need 4-byte alignment, which
   * g_malloc()'s alignment and the packed sizes (multiples of 32) then
   * keep for every matrix. */
  guint64 s8_end = counts->n_floats * sizeof (gfloat) + counts->n_s8;
  guint64 packed_start = (s8_end + 31) / 32 * 32;
  guint64 bytes = packed_start + counts->n_packed;
  WeightCursor at;
  guint i;

  model->data = g_try_malloc (bytes);
  if (model->data == NULL) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_INVALID,
        "cannot allocate %" G_GUINT64_FORMAT " bytes of weights", bytes);
    return FALSE;
  }
  at.floats = model->data;
  at.s8 = (gint8 *) (at.floats + counts->n_floats);
  at.packed = (guint8 *) model->data + packed_start;
  for (i = 0; i < model->n_layers; i++)
    if (!load_layer (model, rd, &recs[i], i, &at, error))
      return FALSE;
  return TRUE;
}

/* Where each layer's output lives, per batch row. */
static void
lay_out_outputs (DspModel *model)
{
  guint i;

  for (i = 0; i < model->n_layers; i++) {
    DspModelLayer *layer = &model->layers[i];

    if (layer->info.kind == DSP_LAYER_GRU) {
      layer->out_offset = model->hidden_per_row;
      model->hidden_per_row += layer->info.output_size;
      model->cell_scratch
          = MAX (model->cell_scratch, layer->cell->scratch_size);
    } else {
      layer->out_offset = model->dense_per_row;
      model->dense_per_row += layer->info.output_size;
    }
  }
}

static DspModel *
parse_model (const Reader *rd, GError **error)
{
  WeightCounts counts = { 0, 0, 0 };
  DspModel *model = NULL;
  LayerRecord *recs = NULL;
  LayerTable table;
  DspFrameConfig cfg;
  guint lookahead = 0;
  gfloat speech_protection;
  guint32 crc;

  if (!check_file (rd, &table.version, &table.data_end, &crc, error)
      || !parse_speech_protection (rd, table.version, &speech_protection, error)
      || !parse_header (rd, &cfg, &lookahead, &table, error)
      || !check_frame_config (&cfg, error))
    return NULL;

  model = g_new0 (DspModel, 1);
  model->ref_count = 1;
  model->config = cfg;
  model->n_features
      = dsp_feature_layout_n_features (cfg.feature_layout_id, cfg.n_bands);
  model->lookahead = lookahead;
  model->n_inputs = model->n_features * (1 + lookahead);
  model->checksum = crc;
  model->format_version = table.version;
  model->speech_protection = speech_protection;
  model->id = rnn_state_fnv1a64 (rd->data, table.data_end);
  model->gain_layer = rnn_state_get_u32 (rd->data + 36);
  model->vad_layer = rnn_state_get_u32 (rd->data + 40);
  /* Right after version 2's header. */
  if (table.version >= 3)
    model->bin_layer = rnn_state_get_u32 (rd->data + DSP_MODEL_HEADER_SIZE);

  recs = g_new0 (LayerRecord, table.n_layers);
  if (!parse_records (model, rd, &table, recs, &counts, error)
      || !load_weights (model, rd, recs, &counts, error)
      || !check_head (model, model->gain_layer, "gain", cfg.n_bands, error)
      || !check_head (model, model->vad_layer, "vad", 1, error)
      || !check_bin_head (model, error)) {
    g_free (recs);
    dsp_model_free (model);
    return NULL;
  }
  lay_out_outputs (model);
  if (model->bin_layer != 0)
    model->n_bin_gains = model->layers[model->bin_layer].info.output_size;
  g_free (recs);
  return model;
}

/**
 * dsp_model_new_from_bytes:
 * @bytes: a model file's contents (docs/model-format.md).
 * @error: return location for a #DSP_ERROR error.
 *
 * Checks every field and size of @bytes before trusting it (magic, version,
 * size, checksum, frame configuration, lookahead, feature layout, each
 * layer's kind, sizes, chaining and blob bounds, the gain and VAD heads)
 * and copies the weights; @bytes is not referenced afterwards. Allocates
 * at most the size of the file's data section plus a fixed-size struct.
 *
 * Returns: (transfer full) (nullable): a model with one reference, or %NULL
 *   with @error set (%DSP_ERROR_CORRUPT, %DSP_ERROR_UNSUPPORTED or
 *   %DSP_ERROR_INVALID; the message names the field and its value).
 */
DspModel *
dsp_model_new_from_bytes (GBytes *bytes, GError **error)
{
  Reader rd;

  g_return_val_if_fail (bytes != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  rd.data = g_bytes_get_data (bytes, &rd.size);
  if (rd.size > DSP_MODEL_MAX_FILE_SIZE) {
    g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
        "model is %" G_GSIZE_FORMAT " bytes, more than the %u-byte limit",
        rd.size, DSP_MODEL_MAX_FILE_SIZE);
    return NULL;
  }
  return parse_model (&rd, error);
}

/**
 * dsp_model_new_from_file:
 * @path: a model file.
 * @error: return location for a #G_FILE_ERROR (cannot read) or #DSP_ERROR
 *   error.
 *
 * Reads @path (a regular file of at most DSP_MODEL_MAX_FILE_SIZE bytes) and
 * loads it as dsp_model_new_from_bytes() does. Errors about the contents
 * are prefixed with the path.
 *
 * Returns: (transfer full) (nullable): a model with one reference, or %NULL
 *   with @error set.
 */
DspModel *
dsp_model_new_from_file (const gchar *path, GError **error)
{
  GStatBuf st;
  gchar *contents = NULL;
  gsize length = 0;
  GError *err = NULL;
  DspModel *model;
  GBytes *bytes;

  g_return_val_if_fail (path != NULL, NULL);
  g_return_val_if_fail (error == NULL || *error == NULL, NULL);

  if (g_stat (path, &st) == 0) {
    if (!S_ISREG (st.st_mode)) {
      g_set_error (error, G_FILE_ERROR, G_FILE_ERROR_INVAL,
          "model file “%s” is not a regular file", path);
      return NULL;
    }
    if ((guint64) st.st_size > DSP_MODEL_MAX_FILE_SIZE) {
      g_set_error (error, DSP_ERROR, DSP_ERROR_CORRUPT,
          "model file “%s” is %" G_GUINT64_FORMAT " bytes, more than the "
          "%u-byte limit",
          path, (guint64) st.st_size, DSP_MODEL_MAX_FILE_SIZE);
      return NULL;
    }
  }
  if (!g_file_get_contents (path, &contents, &length, error))
    return NULL;

  bytes = g_bytes_new_take (contents, length);
  model = dsp_model_new_from_bytes (bytes, &err);
  g_bytes_unref (bytes);
  if (model == NULL) {
    g_propagate_prefixed_error (error, err, "model file “%s”: ", path);
    return NULL;
  }
  return model;
}
