/* rnndenoise — unit tests: model files and reference data for the tests
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * A second, independent writer of the model format (docs/model-format.md)
 * that makes fixed-seed random models, and a reader of the reference arrays
 * written by tests/ref/nnet_ref.py.
 */
#include "config.h"

#include <math.h>
#include <string.h>

#include "dsp/dsp_frame_config.h"
#include "tests/unit/model_helper.h"

/**
 * model_helper_default_config:
 * @cfg: filled.
 * @rate: a sample rate the default frame layout supports.
 *
 * dsp_frame_config_init_default(), aborting the test if it fails.
 */
void
model_helper_default_config (DspFrameConfig *cfg, guint rate)
{
  GError *error = NULL;

  g_assert_true (dsp_frame_config_init_default (cfg, rate, &error));
  g_assert_no_error (error);
}

/**
 * model_helper_spec_init_default:
 * @spec: filled.
 * @weight_type: float, int8 or int8x8 weights.
 * @seed: seed of the random weights.
 *
 * The default 48 kHz frame layout and a small network: dense (tanh), GRU,
 * GRU, then a gain head (sigmoid, n_bands) and a VAD head (sigmoid, 1) that
 * both read the last GRU.
 */
void
model_helper_spec_init_default (ModelHelperSpec *spec,
    DspWeightType weight_type, guint32 seed)
{
  guint n_features;

  memset (spec, 0, sizeof (*spec));
  g_assert (dsp_frame_config_init_default (&spec->config, 48000, NULL));
  n_features = dsp_feature_layout_n_features (spec->config.feature_layout_id,
      spec->config.n_bands);
  spec->weight_type = weight_type;
  /* Version 2, as the shipped models: version 3 only adds the bin-gain
   * head, which a spec asks for with bin_layer. */
  spec->version = 2;
  spec->speech_protection = DSP_DEFAULT_SPEECH_PROTECTION;
  spec->seed = seed;
  spec->n_layers = 5;
  /* clang-format off */
  spec->layers[0] = (ModelHelperLayer) { DSP_LAYER_DENSE, 0, n_features, 24,
      DSP_ACTIVATION_TANH };
  spec->layers[1] = (ModelHelperLayer) { DSP_LAYER_GRU, 1, 24, 24,
      DSP_ACTIVATION_LINEAR };
  spec->layers[2] = (ModelHelperLayer) { DSP_LAYER_GRU, 2, 24, 32,
      DSP_ACTIVATION_LINEAR };
  spec->layers[3] = (ModelHelperLayer) { DSP_LAYER_DENSE, 3, 32,
      spec->config.n_bands, DSP_ACTIVATION_SIGMOID };
  spec->layers[4] = (ModelHelperLayer) { DSP_LAYER_DENSE, 3, 32, 1,
      DSP_ACTIVATION_SIGMOID };
  /* clang-format on */
  spec->gain_layer = 3;
  spec->vad_layer = 4;
}

/**
 * model_helper_spec_init_lookahead:
 * @spec: filled.
 * @weight_type: float, int8 or int8x8 weights.
 * @seed: seed of the random weights.
 * @lookahead: frames the network reads ahead (the header field).
 *
 * The default spec with a lookahead: layer 0 reads 1 + @lookahead frames'
 * features, n_features x (1 + @lookahead) values.
 */
void
model_helper_spec_init_lookahead (ModelHelperSpec *spec,
    DspWeightType weight_type, guint32 seed, guint lookahead)
{
  model_helper_spec_init_default (spec, weight_type, seed);
  spec->lookahead = lookahead;
  spec->layers[0].input_size *= 1 + lookahead;
}

static void
append_u32 (GByteArray *out, guint32 value)
{
  guint32 le = GUINT32_TO_LE (value);

  g_byte_array_append (out, (const guint8 *) &le, 4);
}

static void
append_f32 (GByteArray *out, gfloat value)
{
  guint32 bits;

  memcpy (&bits, &value, 4);
  append_u32 (out, bits);
}

static void
pad4 (GByteArray *out)
{
  static const guint8 zeros[4] = { 0 };

  g_byte_array_append (out, zeros, (4 - out->len % 4) % 4);
}

/* Appends a rows x cols matrix of random weights in +-limit as float, or as
 * int8 with per-row scales appended to scales; only the first drawn columns
 * of each row are drawn, the others are zero. */
static void
append_matrix (GByteArray *weights, GByteArray *scales, GRand *rand,
    DspWeightType type, guint rows, guint cols, guint drawn, gdouble limit)
{
  gfloat *row = g_new (gfloat, cols);
  guint r, c;

  for (r = 0; r < rows; r++) {
    gfloat amax = 0.0f, scale;

    for (c = 0; c < cols; c++) {
      row[c] = c < drawn ? (gfloat) g_rand_double_range (rand, -limit, limit)
                         : 0.0f;
      amax = MAX (amax, fabsf (row[c]));
    }
    if (type == DSP_WEIGHT_F32) {
      for (c = 0; c < cols; c++)
        append_f32 (weights, row[c]);
      continue;
    }
    scale = amax > 0.0f ? amax / 127.0f : 1.0f;
    for (c = 0; c < cols; c++) {
      gint8 q = (gint8) CLAMP (rintf (row[c] / scale), -127.0f, 127.0f);

      g_byte_array_append (weights, (const guint8 *) &q, 1);
    }
    append_f32 (scales, scale);
  }
  g_free (row);
}

static DspWeightType
layer_weight_type (const ModelHelperSpec *spec, const ModelHelperLayer *layer)
{
  if (spec->weight_type == DSP_WEIGHT_S8X8 && layer->input == 0
      && !spec->s8x8_everywhere)
    return DSP_WEIGHT_F32;
  return spec->weight_type;
}

/**
 * model_helper_build:
 * @spec: the frame layout, layers and seed.
 *
 * Writes a model file with random weights drawn from a GRand seeded with
 * spec->seed (the same bytes on every platform). Writes what @spec says
 * without checking it, so tests can make invalid models too.
 *
 * Returns: (transfer full): the file's bytes.
 */
GBytes *
model_helper_build (const ModelHelperSpec *spec)
{
  GByteArray *out = g_byte_array_new ();
  GByteArray *data = g_byte_array_new ();
  GByteArray *weights = g_byte_array_new ();
  GByteArray *scales = g_byte_array_new ();
  GRand *rand = g_rand_new_with_seed (spec->seed);
  guint32 records[DSP_MODEL_MAX_LAYERS][12];
  gsize data_start;
  guint i, j;

  g_byte_array_append (out, (const guint8 *) DSP_MODEL_MAGIC, 4);
  append_u32 (out, spec->version);
  append_u32 (out, 0); /* file_size, patched below */
  append_u32 (out, spec->config.sample_rate);
  append_u32 (out, spec->config.hop);
  append_u32 (out, spec->config.window);
  append_u32 (out, spec->config.n_bands);
  append_u32 (out, spec->config.feature_layout_id);
  append_u32 (out, spec->n_layers);
  append_u32 (out, spec->gain_layer);
  append_u32 (out, spec->vad_layer);
  append_u32 (out, spec->lookahead);
  if (spec->version >= 2)
    append_f32 (out, spec->speech_protection);
  if (spec->version >= 3)
    append_u32 (out, spec->bin_layer);
  for (i = 0; i <= spec->config.n_bands; i++) {
    guint16 le = GUINT16_TO_LE (spec->config.band_edges[i]);

    g_byte_array_append (out, (const guint8 *) &le, 2);
  }
  pad4 (out);
  data_start = out->len + spec->n_layers * DSP_MODEL_LAYER_RECORD_SIZE;

  for (i = 0; i < spec->n_layers; i++) {
    const ModelHelperLayer *l = &spec->layers[i];
    guint n_out = l->output_size;
    gboolean gru = l->kind == DSP_LAYER_GRU;
    guint n_bias = gru ? 6 * n_out : n_out;
    /* With ignore_lookahead, the features' layer draws the weights of a
     * network without lookahead. */
    guint drawn = l->input == 0 && spec->ignore_lookahead
        ? l->input_size / (1 + spec->lookahead)
        : l->input_size;
    gdouble limit = gru ? 1.0 / sqrt (n_out) : 1.5 / sqrt (drawn);
    DspWeightType type = layer_weight_type (spec, l);

    g_byte_array_set_size (weights, 0);
    g_byte_array_set_size (scales, 0);
    append_matrix (weights, scales, rand, type, gru ? 3 * n_out : n_out,
        l->input_size, drawn, limit);
    if (gru)
      append_matrix (weights, scales, rand, type, 3 * n_out, n_out, n_out,
          limit);

    records[i][0] = l->kind;
    records[i][1] = l->input;
    records[i][2] = l->input_size;
    records[i][3] = n_out;
    records[i][4] = l->activation;
    records[i][5] = type;
    records[i][6] = data_start + data->len;
    records[i][7] = weights->len;
    g_byte_array_append (data, weights->data, weights->len);
    pad4 (data);
    records[i][8] = data_start + data->len;
    records[i][9] = 4 * n_bias;
    for (j = 0; j < n_bias; j++)
      append_f32 (data, (gfloat) g_rand_double_range (rand, -0.2, 0.2));
    records[i][10] = scales->len > 0 ? data_start + data->len : 0;
    records[i][11] = scales->len;
    g_byte_array_append (data, scales->data, scales->len);
  }
  for (i = 0; i < spec->n_layers; i++) {
    for (j = 0; j < 12; j++)
      append_u32 (out, records[i][j]);
  }
  g_assert_cmpuint (out->len, ==, data_start);
  g_byte_array_append (out, data->data, data->len);
  append_u32 (out, 0); /* checksum */
  model_helper_fix_size_and_checksum (out->data, out->len);

  g_rand_free (rand);
  g_byte_array_unref (scales);
  g_byte_array_unref (weights);
  g_byte_array_unref (data);
  return g_byte_array_free_to_bytes (out);
}

/**
 * model_helper_random_model:
 * @weight_type: float or int8 weights.
 * @seed: seed of the random weights.
 *
 * Returns: (transfer full): model_helper_build() of the default spec.
 */
GBytes *
model_helper_random_model (DspWeightType weight_type, guint32 seed)
{
  ModelHelperSpec spec;

  model_helper_spec_init_default (&spec, weight_type, seed);
  return model_helper_build (&spec);
}

/* Writes @value as a little-endian float at data + offset. */
static void
put_f32 (guint8 *data, gsize offset, gfloat value)
{
  guint32 bits;

  memcpy (&bits, &value, 4);
  model_helper_put_u32 (data, offset, bits);
}

/**
 * model_helper_fill_weights:
 * @data: a model file whose layer @layer has float32 weights.
 * @layer: a layer.
 * @first_column: the first input column to set.
 * @n_columns: how many columns.
 * @value: the weight they get.
 *
 * Sets columns @first_column .. + @n_columns - 1 of every row of the
 * layer's input matrix (a dense layer's W, a GRU's W_ih) to @value: the
 * weights the layer gives those inputs. Call
 * model_helper_fix_size_and_checksum() afterwards.
 */
void
model_helper_fill_weights (guint8 *data, guint layer, guint first_column,
    guint n_columns, gfloat value)
{
  gsize rec = model_helper_layer_record (data, layer);
  guint kind = model_helper_get_u32 (data, rec);
  guint n_in = model_helper_get_u32 (data, rec + 8);
  guint n_out = model_helper_get_u32 (data, rec + 12);
  gsize weights = model_helper_get_u32 (data, rec + 24);
  guint rows = kind == DSP_LAYER_GRU ? 3 * n_out : n_out;
  guint r, c;

  g_assert_cmpuint (model_helper_get_u32 (data, rec + 20), ==, DSP_WEIGHT_F32);
  g_assert_cmpuint (first_column + n_columns, <=, n_in);
  for (r = 0; r < rows; r++)
    for (c = first_column; c < first_column + n_columns; c++)
      put_f32 (data, weights + 4 * ((gsize) r * n_in + c), value);
}

/**
 * model_helper_fill_bias:
 * @data: a model file.
 * @layer: a dense layer.
 * @value: the bias every output gets.
 *
 * Call model_helper_fix_size_and_checksum() afterwards.
 */
void
model_helper_fill_bias (guint8 *data, guint layer, gfloat value)
{
  gsize rec = model_helper_layer_record (data, layer);
  gsize bias = model_helper_get_u32 (data, rec + 32);
  guint n_bias = model_helper_get_u32 (data, rec + 36) / 4;
  guint i;

  g_assert_cmpuint (model_helper_get_u32 (data, rec), ==, DSP_LAYER_DENSE);
  for (i = 0; i < n_bias; i++)
    put_f32 (data, bias + 4 * i, value);
}

/* Reads a little-endian u32 at data + offset. */
guint32
model_helper_get_u32 (const guint8 *data, gsize offset)
{
  guint32 v;

  memcpy (&v, data + offset, 4);
  return GUINT32_FROM_LE (v);
}

/* Writes value as a little-endian u32 at data + offset. */
void
model_helper_put_u32 (guint8 *data, gsize offset, guint32 value)
{
  guint32 le = GUINT32_TO_LE (value);

  memcpy (data + offset, &le, 4);
}

/**
 * model_helper_header_size:
 * @data: a model file of version 1, 2 or 3.
 *
 * Returns: the length of its header: where its band edges start.
 */
gsize
model_helper_header_size (const guint8 *data)
{
  guint32 version = model_helper_get_u32 (data, 4);

  if (version == 1)
    return DSP_MODEL_HEADER_SIZE_V1;
  return version == 2 ? DSP_MODEL_HEADER_SIZE : DSP_MODEL_HEADER_SIZE_V3;
}

/**
 * model_helper_layer_record:
 * @data: a model file whose n_bands field is in 1..DSP_MAX_BANDS.
 * @index: a layer.
 *
 * Returns: the byte offset of layer @index's record.
 */
gsize
model_helper_layer_record (const guint8 *data, guint index)
{
  guint32 n_bands = model_helper_get_u32 (data, 24);

  return model_helper_header_size (data) + (2 * (n_bands + 1) + 3) / 4 * 4
      + index * DSP_MODEL_LAYER_RECORD_SIZE;
}

/* Bitwise CRC-32 (IEEE, reflected), independent of the loader's. */
guint32
model_helper_crc32 (const guint8 *data, gsize size)
{
  guint32 crc = 0xffffffffu;
  gsize i;
  guint k;

  for (i = 0; i < size; i++) {
    crc ^= data[i];
    for (k = 0; k < 8; k++)
      crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

/**
 * model_helper_fix_size_and_checksum:
 * @data: a model file's bytes (at least 12).
 * @size: its length.
 *
 * Rewrites the file_size field and the trailing CRC-32 so that a deliberately
 * corrupted field reaches the check the test is about.
 */
void
model_helper_fix_size_and_checksum (guint8 *data, gsize size)
{
  model_helper_put_u32 (data, 8, size);
  model_helper_put_u32 (data, size - 4, model_helper_crc32 (data, size - 4));
}

/**
 * model_helper_data_path:
 * @name: a file in tests/unit/data.
 *
 * Returns: (transfer full): its path, under $RNNDENOISE_TEST_DATA (set by
 *   meson) or tests/unit/data.
 */
gchar *
model_helper_data_path (const gchar *name)
{
  const gchar *dir = g_getenv ("RNNDENOISE_TEST_DATA");

  return g_build_filename (dir ? dir : "tests/unit/data", name, NULL);
}

/**
 * model_helper_ref_array:
 * @file: a reference file in the test data directory.
 * @name: an array in it.
 * @is_s8: TRUE for an int8 array, FALSE for a float array.
 * @n_values: (out): number of values.
 *
 * Returns: (transfer full) (nullable): the values (gfloat or gint8), or NULL
 *   if the file or the array is missing or malformed.
 */
gpointer
model_helper_ref_array (const gchar *file, const gchar *name, gboolean is_s8,
    gsize *n_values)
{
  gchar *path = model_helper_data_path (file);
  gchar *contents = NULL;
  gsize length = 0, pos = 12, i;
  gpointer result = NULL;
  guint32 count, a;

  *n_values = 0;
  if (!g_file_get_contents (path, &contents, &length, NULL) || length < 12
      || memcmp (contents, "RREF", 4) != 0)
    goto done;
  count = model_helper_get_u32 ((const guint8 *) contents, 8);
  for (a = 0; a < count; a++) {
    const guint8 *p = (const guint8 *) contents;
    guint32 name_len, type, n, elem;

    if (pos + 4 > length)
      break;
    name_len = model_helper_get_u32 (p, pos);
    if (name_len > length - pos - 4 || length - pos - 4 - name_len < 8)
      break;
    type = model_helper_get_u32 (p, pos + 4 + name_len);
    n = model_helper_get_u32 (p, pos + 8 + name_len);
    elem = type == 1 ? 1 : 4;
    if ((guint64) n * elem > length - pos - 12 - name_len)
      break;
    if (name_len == strlen (name)
        && memcmp (p + pos + 4, name, name_len) == 0) {
      const guint8 *v = p + pos + 12 + name_len;

      if ((type == 1) != is_s8)
        break;
      if (is_s8) {
        result = g_memdup2 (v, n);
      } else {
        gfloat *f = g_new (gfloat, n);

        for (i = 0; i < n; i++) {
          guint32 bits = model_helper_get_u32 (v, 4 * i);

          memcpy (&f[i], &bits, 4);
        }
        result = f;
      }
      *n_values = n;
      break;
    }
    pos += 12 + name_len + (gsize) n * elem;
  }

done:
  g_free (contents);
  g_free (path);
  return result;
}

/**
 * model_helper_bin_head_model:
 * @n_bins: the head's outputs.
 * @bias: every output's bias.
 * @size: (out): the file's length.
 *
 * The default model (seed 9) as version 3 with a bin-gain head, layer 5: a
 * dense layer of @n_bins linear outputs reading the last GRU (layer 2),
 * its weights zero and its biases @bias, so that its outputs are @bias.
 *
 * Returns: (transfer full): the file's bytes.
 */
guint8 *
model_helper_bin_head_model (guint n_bins, gfloat bias, gsize *size)
{
  ModelHelperSpec spec;
  GBytes *bytes;
  guint8 *data;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_F32, 9);
  spec.version = 3;
  spec.bin_layer = 5;
  spec.n_layers = 6;
  spec.layers[5] = (ModelHelperLayer){ DSP_LAYER_DENSE, 3, 32, n_bins,
    DSP_ACTIVATION_LINEAR };
  bytes = model_helper_build (&spec);
  data = g_bytes_unref_to_data (bytes, size);
  model_helper_fill_weights (data, 5, 0, 32, 0.0f);
  model_helper_fill_bias (data, 5, bias);
  model_helper_fix_size_and_checksum (data, *size);
  return data;
}

/* A random model of feature layout 2 (with a noise floor tracker) from
 * @seed whose VAD weights are zero and its bias @vad_bias; with
 * @fix_gains its gain weights too, their biases @gain_bias. */
static guint8 *
fixed_heads_model (guint rate, guint32 seed, gboolean fix_gains,
    gfloat gain_bias, gfloat vad_bias, gsize *size)
{
  ModelHelperSpec spec;
  GBytes *bytes;
  guint8 *data;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_F32, seed);
  g_assert (dsp_frame_config_init_layout (&spec.config, rate,
      DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2, NULL));
  spec.layers[0].input_size
      = dsp_feature_layout_n_features (DSP_FEATURE_LAYOUT_NOISE_FLOOR_V2,
          spec.config.n_bands);
  spec.layers[3].output_size = spec.config.n_bands;
  bytes = model_helper_build (&spec);
  data = g_bytes_unref_to_data (bytes, size);
  if (fix_gains) {
    model_helper_fill_weights (data, 3, 0, spec.layers[3].input_size, 0.0f);
    model_helper_fill_bias (data, 3, gain_bias);
  }
  model_helper_fill_weights (data, 4, 0, spec.layers[4].input_size, 0.0f);
  model_helper_fill_bias (data, 4, vad_bias);
  model_helper_fix_size_and_checksum (data, *size);
  return data;
}

/**
 * model_helper_vad_fixed_model:
 * @rate: the model's sample rate.
 * @vad_bias: the VAD output's bias.
 * @size: (out): the file's length.
 *
 * A random model of feature layout 2 (seed 93) whose voice probability is
 * sigmoid (@vad_bias) whatever it hears (its VAD weights zero): with +20
 * every frame is speech, with -20 none is, and its band gains move with
 * the input as a random network's do.
 *
 * Returns: (transfer full): the file's bytes.
 */
guint8 *
model_helper_vad_fixed_model (guint rate, gfloat vad_bias, gsize *size)
{
  return fixed_heads_model (rate, 93, FALSE, 0.0f, vad_bias, size);
}

/**
 * model_helper_cutting_model:
 * @rate: the model's sample rate.
 * @vad_bias: the VAD output's bias.
 * @size: (out): the file's length.
 *
 * A model of feature layout 2 (seed 91) whose network cuts every band
 * (gains about e^-20: zero weights, bias -20) and whose voice probability
 * is sigmoid (@vad_bias) whatever it hears.
 *
 * Returns: (transfer full): the file's bytes.
 */
guint8 *
model_helper_cutting_model (guint rate, gfloat vad_bias, gsize *size)
{
  return fixed_heads_model (rate, 91, TRUE, -20.0f, vad_bias, size);
}

/* Energy of @a - @b (@b NULL: of @a) over samples @from .. @to, in dB
 * relative to @ref's energy there: how far a processed signal is from
 * the one it should be, for the hum tests. */
gdouble
model_helper_difference_db (const gfloat *a, const gfloat *b, const gfloat *ref,
    gsize from, gsize to)
{
  gdouble e = 1e-30, r = 1e-30;
  gsize i;

  for (i = from; i < to; i++) {
    gdouble d = (gdouble) a[i] - (b != NULL ? b[i] : 0.0);

    e += d * d;
    r += (gdouble) ref[i] * ref[i];
  }
  return 10.0 * log10 (e / r);
}
