/* rnndenoise — fuzzing: writes the seed corpora
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: make_seeds OUTDIR [UNIT_DATA_DIR]
 *
 * Writes OUTDIR/snapshot, OUTDIR/model and OUTDIR/processor: valid inputs of
 * several shapes and formats, then truncated, bit-flipped and hostile
 * variants (resealed with a valid checksum where the point is the check
 * behind it). With UNIT_DATA_DIR (tests/unit/data) it also copies
 * model_s8.rnnm, a model written by the independent numpy writer. Every
 * byte is deterministic, so the committed corpus is remade with
 *
 *   build/tests/fuzz/make_seeds tests/fuzz/corpus tests/unit/data
 *
 * (existing crash-* reproducers are left alone).
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <glib/gstdio.h>

#include "dsp/dsp_frame_config.h"
#include "state/rnn_state_quant.h"
#include "state/rnn_state_snapshot.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/unit/model_helper.h"

static const gchar *out_dir;

static void
write_seed (const gchar *corpus, const gchar *name, const guint8 *data,
    gsize size)
{
  gchar *dir = g_build_filename (out_dir, corpus, NULL);
  gchar *path = g_build_filename (dir, name, NULL);
  GError *error = NULL;

  if (g_mkdir_with_parents (dir, 0755) != 0)
    g_error ("cannot create %s", dir);
  if (!g_file_set_contents (path, (const gchar *) data, size, &error))
    g_error ("%s", error->message);
  g_free (path);
  g_free (dir);
}

static void
write_seed_bytes (const gchar *corpus, const gchar *name, GBytes *bytes)
{
  gsize size;
  const guint8 *data = g_bytes_get_data (bytes, &size);

  write_seed (corpus, name, data, size);
}

/* Writes @bytes with @value put at @offset, resealed by @reseal (or not). */
static void
write_patched (const gchar *corpus, const gchar *name, GBytes *bytes,
    gsize offset, guint32 value, void (*reseal) (guint8 *, gsize))
{
  gsize size = g_bytes_get_size (bytes);
  guint8 *data = g_memdup2 (g_bytes_get_data (bytes, NULL), size);

  g_assert (offset + 4 <= size);
  fuzz_put_u32 (data + offset, value);
  if (reseal != NULL)
    reseal (data, size);
  write_seed (corpus, name, data, size);
  g_free (data);
}

/* Writes the first @size bytes of @bytes (a truncated file). */
static void
write_truncated (const gchar *corpus, const gchar *name, GBytes *bytes,
    gsize size)
{
  g_assert (size <= g_bytes_get_size (bytes));
  write_seed (corpus, name, g_bytes_get_data (bytes, NULL), size);
}

/* Writes @bytes with bit @bit flipped, resealed by @reseal (or not). */
static void
write_flipped (const gchar *corpus, const gchar *name, GBytes *bytes, gsize bit,
    void (*reseal) (guint8 *, gsize))
{
  gsize size = g_bytes_get_size (bytes);
  guint8 *data = g_memdup2 (g_bytes_get_data (bytes, NULL), size);

  g_assert (bit / 8 < size);
  data[bit / 8] ^= 1u << (bit % 8);
  if (reseal != NULL)
    reseal (data, size);
  write_seed (corpus, name, data, size);
  g_free (data);
}

/* ---- snapshots ---- */

/* A snapshot of @desc with values drawn from @seed in -@range..@range
 * (plus a few non-finite ones when @specials). */
static GBytes *
make_snapshot (const RnnStateDescriptor *desc, guint32 seed, gdouble range,
    gboolean specials)
{
  gsize n = rnn_state_descriptor_n_values (desc), i;
  gfloat *values = g_new (gfloat, n);
  gfloat *history = g_new (gfloat, desc->history_size + 1);
  gpointer hidden = g_malloc (rnn_state_descriptor_hidden_bytes (desc));
  GRand *rand = g_rand_new_with_seed (seed);
  GBytes *bytes;

  for (i = 0; i < n; i++)
    values[i] = (gfloat) g_rand_double_range (rand, -range, range);
  for (i = 0; i < desc->history_size; i++)
    history[i] = (gfloat) g_rand_double_range (rand, -1.0, 1.0);
  if (specials && n >= 4) {
    values[0] = NAN;
    values[1] = INFINITY;
    values[2] = -INFINITY;
    values[3] = 1e-40f;
  }
  rnn_state_quantize (desc, values, hidden);
  bytes = rnn_state_snapshot_serialize (desc, seed, hidden, history);
  g_rand_free (rand);
  g_free (hidden);
  g_free (history);
  g_free (values);
  return bytes;
}

/* Offsets of the snapshot header (docs/state-contract.md). */
#define SNAP_HEADER_SIZE 8
#define SNAP_BATCH 32
#define SNAP_N_LAYERS 36
#define SNAP_ELEMENT 40
#define SNAP_HISTORY 44
#define SNAP_LAYER0 56

static void
make_snapshot_seeds (void)
{
  static const gchar *const target_names[]
      = { "f32-mono", "s16-mono", "s8-mono-zero-point", "s8-stereo-3-layers" };
  RnnStateDescriptor desc;
  GBytes *bytes, *base;
  gsize size;
  guint t;

  for (t = 0; t < FUZZ_SNAPSHOT_N_TARGETS; t++) {
    gchar *name = g_strdup_printf ("seed-target%u-%s", t, target_names[t]);

    fuzz_snapshot_target (t, &desc);
    bytes = make_snapshot (&desc, 100 + t, 1.0, FALSE);
    write_seed_bytes ("snapshot", name, bytes);
    g_bytes_unref (bytes);
    g_free (name);
  }

  /* Other formats of the mono layout: rescaled on import. */
  fuzz_snapshot_target (0, &desc);
  rnn_state_descriptor_set_element_type (&desc, RNN_STATE_ELEMENT_S8, 2.0f);
  desc.zero_point[1] = -100;
  bytes = make_snapshot (&desc, 200, 2.0, FALSE);
  write_seed_bytes ("snapshot", "seed-rescale-s8-saturates", bytes);
  g_bytes_unref (bytes);

  fuzz_snapshot_target (0, &desc);
  rnn_state_descriptor_set_element_type (&desc, RNN_STATE_ELEMENT_S16, 1e30f);
  desc.zero_point[0] = 30000;
  bytes = make_snapshot (&desc, 201, 1e30, FALSE);
  write_seed_bytes ("snapshot", "seed-rescale-s16-huge-scale", bytes);
  g_bytes_unref (bytes);

  fuzz_snapshot_target (0, &desc);
  bytes = make_snapshot (&desc, 202, 1000.0, TRUE);
  write_seed_bytes ("snapshot", "seed-f32-nonfinite-values", bytes);
  g_bytes_unref (bytes);

  /* Valid bytes that no target takes. */
  fuzz_snapshot_target (0, &desc);
  desc.model_id ^= 1;
  bytes = make_snapshot (&desc, 300, 1.0, FALSE);
  write_seed_bytes ("snapshot", "seed-other-model", bytes);
  g_bytes_unref (bytes);

  fuzz_snapshot_target (0, &desc);
  desc.direction = RNN_STATE_DIRECTION_BIDIRECTIONAL;
  bytes = make_snapshot (&desc, 301, 1.0, FALSE);
  write_seed_bytes ("snapshot", "seed-bidirectional", bytes);
  g_bytes_unref (bytes);

  fuzz_snapshot_target (0, &desc);
  desc.cell = RNN_STATE_CELL_TEACH;
  bytes = make_snapshot (&desc, 302, 1.0, FALSE);
  write_seed_bytes ("snapshot", "seed-teach-cell", bytes);
  g_bytes_unref (bytes);

  /* The same byte size, another layout: never enough. */
  fuzz_snapshot_target (0, &desc);
  desc.hidden[0] = 32;
  desc.hidden[1] = 24;
  bytes = make_snapshot (&desc, 304, 1.0, FALSE);
  write_seed_bytes ("snapshot", "seed-swapped-layers", bytes);
  g_bytes_unref (bytes);

  fuzz_snapshot_target (1, &desc);
  desc.history_size = 65;
  bytes = make_snapshot (&desc, 305, 1.0, FALSE);
  write_seed_bytes ("snapshot", "seed-other-history-size", bytes);
  g_bytes_unref (bytes);

  fuzz_snapshot_target (0, &desc);
  desc.batch = 2;
  desc.history_size = 0;
  bytes = make_snapshot (&desc, 303, 1.0, FALSE);
  write_seed_bytes ("snapshot", "seed-stereo-no-history", bytes);
  g_bytes_unref (bytes);

  /* Broken variants of the mono F32 snapshot. */
  fuzz_snapshot_target (0, &desc);
  base = make_snapshot (&desc, 400, 1.0, FALSE);
  size = g_bytes_get_size (base);
  write_truncated ("snapshot", "bad-truncated-header", base, 40);
  write_truncated ("snapshot", "bad-truncated-sections", base, size / 2);
  write_truncated ("snapshot", "bad-truncated-checksum", base, size - 1);
  write_flipped ("snapshot", "bad-flip-no-reseal", base, 8 * 70 + 3, NULL);
  write_flipped ("snapshot", "bad-flip-magic", base, 5, fuzz_reseal_crc);
  write_patched ("snapshot", "bad-version", base, 4, 2, fuzz_reseal_crc);
  write_patched ("snapshot", "bad-header-size", base, SNAP_HEADER_SIZE,
      0xffffffffu, fuzz_reseal_crc);
  write_patched ("snapshot", "bad-batch-huge", base, SNAP_BATCH, 0x80000000u,
      fuzz_reseal_crc);
  write_patched ("snapshot", "bad-layers-9", base, SNAP_N_LAYERS, 9,
      fuzz_reseal_crc);
  write_patched ("snapshot", "bad-layers-huge", base, SNAP_N_LAYERS,
      0xffffffffu, fuzz_reseal_crc);
  write_patched ("snapshot", "bad-hidden-huge", base, SNAP_LAYER0, 1u << 20,
      fuzz_reseal_crc);
  write_patched ("snapshot", "bad-history-huge", base, SNAP_HISTORY,
      0x7fffffffu, fuzz_reseal_crc);
  write_patched ("snapshot", "bad-element-type", base, SNAP_ELEMENT, 7,
      fuzz_reseal_crc);
  write_patched ("snapshot", "bad-element-s8-sections", base, SNAP_ELEMENT,
      RNN_STATE_ELEMENT_S8, fuzz_reseal_crc);
  write_patched ("snapshot", "bad-section-size", base, SNAP_LAYER0 + 2 * 12, 4,
      fuzz_reseal_crc);
  g_bytes_unref (base);

  /* An S8 snapshot whose scale is not finite, and one whose zero point is
   * out of range. */
  fuzz_snapshot_target (2, &desc);
  base = make_snapshot (&desc, 401, 1.0, FALSE);
  write_patched ("snapshot", "bad-scale-inf", base, SNAP_LAYER0 + 4,
      0x7f800000u, fuzz_reseal_crc);
  write_patched ("snapshot", "bad-zero-point", base, SNAP_LAYER0 + 8, 128,
      fuzz_reseal_crc);
  g_bytes_unref (base);

  write_seed ("snapshot", "bad-empty", (const guint8 *) "", 0);
  write_seed ("snapshot", "bad-magic-only", (const guint8 *) "RNNS", 4);
}

/* ---- models ---- */

/* A small network on the default frame layout of @rate: dense (tanh) of
 * @width, @n_gru GRUs of @width, gain and VAD heads. */
static GBytes *
make_model (guint rate, DspWeightType type, guint n_gru, guint width,
    guint32 seed)
{
  ModelHelperSpec spec;
  guint n_features, i;

  model_helper_spec_init_default (&spec, type, seed);
  g_assert (dsp_frame_config_init_default (&spec.config, rate, NULL));
  n_features = dsp_feature_layout_n_features (spec.config.feature_layout_id,
      spec.config.n_bands);
  spec.n_layers = n_gru + 3;
  spec.layers[0] = (ModelHelperLayer){ DSP_LAYER_DENSE, 0, n_features, width,
    DSP_ACTIVATION_TANH };
  for (i = 1; i <= n_gru; i++)
    spec.layers[i] = (ModelHelperLayer){ DSP_LAYER_GRU, i, width, width,
      DSP_ACTIVATION_LINEAR };
  spec.layers[n_gru + 1] = (ModelHelperLayer){ DSP_LAYER_DENSE, n_gru + 1,
    width, spec.config.n_bands, DSP_ACTIVATION_SIGMOID };
  spec.layers[n_gru + 2] = (ModelHelperLayer){ DSP_LAYER_DENSE, n_gru + 1,
    width, 1, DSP_ACTIVATION_SIGMOID };
  spec.gain_layer = n_gru + 1;
  spec.vad_layer = n_gru + 2;
  return model_helper_build (&spec);
}

/* int8x8 weights on the layer that reads the features: refused. */
static GBytes *
make_s8x8_on_features (void)
{
  ModelHelperSpec spec;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_S8X8, 7);
  spec.s8x8_everywhere = TRUE;
  return model_helper_build (&spec);
}

/* Offsets of the model header and of a layer record. */
#define MODEL_VERSION 4
#define MODEL_HOP 16
#define MODEL_N_BANDS 24
#define MODEL_N_LAYERS 32
#define MODEL_GAIN_LAYER 36
#define MODEL_LOOKAHEAD 44
#define MODEL_SPEECH_PROTECTION 48
#define REC_KIND 0
#define REC_INPUT 4
#define REC_INPUT_SIZE 8
#define REC_OUTPUT_SIZE 12
#define REC_WEIGHT_TYPE 20
#define REC_WEIGHTS_OFFSET 24
#define REC_WEIGHTS_SIZE 28
#define REC_BIAS_OFFSET 32

/* A model that reads two frames ahead (its first layer reads three
 * frames' features), and the same file claiming more lookahead than the
 * loader allows, or less than its first layer reads. */
static void
make_lookahead_seeds (void)
{
  ModelHelperSpec spec;
  GBytes *bytes;

  model_helper_spec_init_lookahead (&spec, DSP_WEIGHT_S8X8, 7, 2);
  bytes = model_helper_build (&spec);
  write_seed_bytes ("model", "seed-48k-int8x8-lookahead2", bytes);
  write_patched ("model", "bad-lookahead-3", bytes, MODEL_LOOKAHEAD, 3,
      fuzz_reseal_model);
  write_patched ("model", "bad-lookahead-1-wide-input", bytes, MODEL_LOOKAHEAD,
      1, fuzz_reseal_model);
  g_bytes_unref (bytes);
}

/* A version 1 file (no speech_protection field) and version 2 files whose
 * speech protection the loader must refuse. */
static void
make_speech_protection_seeds (void)
{
  ModelHelperSpec spec;
  GBytes *bytes;

  model_helper_spec_init_default (&spec, DSP_WEIGHT_S8X8, 8);
  spec.version = 1;
  bytes = model_helper_build (&spec);
  write_seed_bytes ("model", "seed-48k-int8x8-version1", bytes);
  g_bytes_unref (bytes);
  spec.version = DSP_MODEL_FORMAT_VERSION;
  spec.speech_protection = 0.5f;
  bytes = model_helper_build (&spec);
  write_seed_bytes ("model", "seed-48k-int8x8-protection-half", bytes);
  write_patched ("model", "bad-speech-protection-nan", bytes,
      MODEL_SPEECH_PROTECTION, 0x7fc00000, fuzz_reseal_model);
  write_patched ("model", "bad-speech-protection-3", bytes,
      MODEL_SPEECH_PROTECTION, 0x40400000, fuzz_reseal_model);
  write_patched ("model", "bad-version-1-of-version-2", bytes, MODEL_VERSION, 1,
      fuzz_reseal_model);
  g_bytes_unref (bytes);
}

static void
make_model_seeds (const gchar *unit_data)
{
  GBytes *bytes, *base;
  gsize size, rec1, rec2;
  guint8 *data;

  bytes = make_model (8000, DSP_WEIGHT_F32, 1, 8, 1);
  write_seed_bytes ("model", "seed-8k-f32-1gru", bytes);
  g_bytes_unref (bytes);
  bytes = make_model (16000, DSP_WEIGHT_S8, 2, 6, 2);
  write_seed_bytes ("model", "seed-16k-int8-2gru", bytes);
  g_bytes_unref (bytes);
  bytes = make_model (48000, DSP_WEIGHT_S8, 1, 4, 3);
  write_seed_bytes ("model", "seed-48k-int8-1gru", bytes);
  g_bytes_unref (bytes);
  bytes = make_model (8000, DSP_WEIGHT_S8, 8, 2, 4);
  write_seed_bytes ("model", "seed-8k-int8-8gru", bytes);
  g_bytes_unref (bytes);
  bytes = make_model (96000, DSP_WEIGHT_F32, 1, 2, 5);
  write_seed_bytes ("model", "seed-96k-f32-1gru", bytes);
  g_bytes_unref (bytes);
  bytes = make_model (16000, DSP_WEIGHT_S8X8, 2, 20, 6);
  write_seed_bytes ("model", "seed-16k-int8x8-2gru", bytes);
  g_bytes_unref (bytes);
  bytes = make_s8x8_on_features ();
  write_seed_bytes ("model", "bad-int8x8-features", bytes);
  g_bytes_unref (bytes);
  make_lookahead_seeds ();
  make_speech_protection_seeds ();

  if (unit_data != NULL) {
    gchar *path = g_build_filename (unit_data, "model_s8.rnnm", NULL);
    gchar *contents;

    if (!g_file_get_contents (path, &contents, &size, NULL))
      g_error ("cannot read %s", path);
    write_seed ("model", "seed-unit-model-s8", (const guint8 *) contents, size);
    g_free (contents);
    g_free (path);
  }

  /* Broken variants of the 8 kHz model: a dense layer (0), a GRU (1). */
  base = make_model (8000, DSP_WEIGHT_F32, 1, 8, 6);
  data = (guint8 *) g_bytes_get_data (base, &size);
  rec1 = model_helper_layer_record (data, 0);
  rec2 = model_helper_layer_record (data, 1);
  write_truncated ("model", "bad-truncated-header", base, 30);
  write_truncated ("model", "bad-truncated-layers", base, rec2);
  write_truncated ("model", "bad-truncated-data", base, size - 5);
  write_flipped ("model", "bad-flip-no-reseal", base, 8 * 100 + 1, NULL);
  write_patched ("model", "bad-file-size", base, 8, 0xfffffff0u,
      fuzz_reseal_crc);
  write_patched ("model", "bad-hop-mismatch", base, MODEL_HOP, 81,
      fuzz_reseal_model);
  write_patched ("model", "bad-bands-huge", base, MODEL_N_BANDS, 0xffffu,
      fuzz_reseal_model);
  write_patched ("model", "bad-layers-huge", base, MODEL_N_LAYERS, 0xffffffffu,
      fuzz_reseal_model);
  write_patched ("model", "bad-gain-layer", base, MODEL_GAIN_LAYER, 1,
      fuzz_reseal_model);
  write_patched ("model", "bad-kind", base, rec1 + REC_KIND, 3,
      fuzz_reseal_model);
  write_patched ("model", "bad-input-forward", base, rec1 + REC_INPUT, 2,
      fuzz_reseal_model);
  write_patched ("model", "bad-input-size", base, rec2 + REC_INPUT_SIZE, 1024,
      fuzz_reseal_model);
  write_patched ("model", "bad-output-size", base, rec2 + REC_OUTPUT_SIZE, 1024,
      fuzz_reseal_model);
  write_patched ("model", "bad-weight-type", base, rec2 + REC_WEIGHT_TYPE, 1,
      fuzz_reseal_model);
  write_patched ("model", "bad-blob-offset-wraps", base,
      rec2 + REC_WEIGHTS_OFFSET, 0xfffffff0u, fuzz_reseal_model);
  write_patched ("model", "bad-blob-size-huge", base, rec2 + REC_WEIGHTS_SIZE,
      0x40000000u, fuzz_reseal_model);
  /* A NaN weight: the first float of the first blob. */
  write_patched ("model", "bad-nan-weight", base,
      fuzz_get_u32 (data + rec1 + REC_WEIGHTS_OFFSET), 0x7fc00000u,
      fuzz_reseal_model);
  /* A huge (finite) weight, which loads. */
  write_patched ("model", "seed-huge-weight", base,
      fuzz_get_u32 (data + rec2 + REC_WEIGHTS_OFFSET), 0x7f7fffffu,
      fuzz_reseal_model);
  /* Overlapping blobs: the VAD head's bias (the last blob) moved onto the
   * gain head's bias and the file cut by its 4 bytes, so that the blob sizes
   * add up to more than the data section. */
  data = g_memdup2 (data, size);
  rec1 = model_helper_layer_record (data, fuzz_get_u32 (data + 40));
  rec2 = model_helper_layer_record (data, fuzz_get_u32 (data + 36));
  fuzz_put_u32 (data + rec1 + REC_BIAS_OFFSET,
      fuzz_get_u32 (data + rec2 + REC_BIAS_OFFSET));
  fuzz_reseal_model (data, size - 4);
  write_seed ("model", "bad-blobs-overlap", data, size - 4);
  g_free (data);
  g_bytes_unref (base);

  write_seed ("model", "bad-empty", (const guint8 *) "", 0);
  write_seed ("model", "bad-magic-only", (const guint8 *) "RNDM", 4);
}

/* ---- processor programs ---- */

static void
put_u8 (GByteArray *p, guint8 v)
{
  g_byte_array_append (p, &v, 1);
}

static void
put_u16 (GByteArray *p, guint16 v)
{
  put_u8 (p, v & 0xff);
  put_u8 (p, v >> 8);
}

static void
put_f32 (GByteArray *p, gfloat f)
{
  guint32 bits;

  memcpy (&bits, &f, 4);
  put_u16 (p, bits & 0xffff);
  put_u16 (p, bits >> 16);
}

/* The opcode byte: @op, on B if @b, with @flags. */
static void
put_op (GByteArray *p, FuzzOp op, gboolean b, guint flags)
{
  put_u8 (p, op | (b ? FUZZ_OP_TARGET_B : 0) | (flags << 5));
}

/* PROCESS of @n samples of the synthetic signal @seed; @flags: bit 0 in
 * place, bits 1..2 side output type. */
static void
put_process_synth (GByteArray *p, gboolean b, guint flags, guint16 n,
    guint8 seed)
{
  put_op (p, FUZZ_OP_PROCESS, b, flags);
  put_u16 (p, n);
  put_u8 (p, FUZZ_SIGNAL_SYNTH);
  put_u8 (p, seed);
}

/* SETTINGS: the attenuation limit, the VAD gate's threshold (/ 255) and
 * hold, the speech protection, stationary suppression, harmonic lift and
 * speech hold, then flags (bit 0 level normalisation, bit 1 hum removal). */
static void
put_settings (GByteArray *p, gfloat attenuation_db, guint8 vad_threshold,
    guint8 vad_hold, gfloat protection, gfloat suppression, gfloat lift,
    gfloat hold, guint8 flags)
{
  put_op (p, FUZZ_OP_SETTINGS, FALSE, 0);
  put_f32 (p, attenuation_db);
  put_u8 (p, vad_threshold);
  put_u8 (p, vad_hold);
  put_f32 (p, protection);
  put_f32 (p, suppression);
  put_f32 (p, lift);
  put_f32 (p, hold);
  put_u8 (p, flags);
}

/* MIGRATE from A to B, then @n samples of the synthetic signal @seed
 * through both. */
static void
put_migrate_synth (GByteArray *p, guint16 n, guint8 seed)
{
  put_op (p, FUZZ_OP_MIGRATE, FALSE, 0);
  put_u16 (p, n);
  put_u8 (p, FUZZ_SIGNAL_SYNTH);
  put_u8 (p, seed);
}

/* Mutations of IMPORT_MUTANT: a byte xor, a run of a special value. */
static void
put_xor (GByteArray *p, guint16 at, guint8 mask)
{
  put_u8 (p, 0);
  put_u16 (p, at);
  put_u8 (p, mask);
}

static void
put_float_run (GByteArray *p, guint16 first, guint8 value, guint run)
{
  put_u8 (p, 1);
  put_u16 (p, first);
  put_u8 (p, value);
  put_u8 (p, run - 1);
}

static void
put_process_special (GByteArray *p, gboolean b, guint16 n, guint8 index)
{
  put_op (p, FUZZ_OP_PROCESS, b, 0);
  put_u16 (p, n);
  put_u8 (p, FUZZ_SIGNAL_SPECIAL);
  put_u8 (p, index);
}

static void
write_program (const gchar *name, GByteArray *p)
{
  write_seed ("processor", name, p->data, p->len);
  g_byte_array_unref (p);
}

static GByteArray *
program_new (guint8 config)
{
  GByteArray *p = g_byte_array_new ();

  put_u8 (p, config);
  return p;
}

static void
make_processor_seeds (void)
{
  GByteArray *p;
  GRand *rand;
  guint i;

  /* Mono 48 kHz: frames, a partial frame, the tail. */
  p = program_new (0);
  put_process_synth (p, FALSE, 0, 1000, 7);
  put_process_synth (p, FALSE, 0, 1441, 8);
  put_op (p, FUZZ_OP_DRAIN, FALSE, 0);
  write_program ("seed-mono-process-drain", p);

  /* Stereo with the three side formats, in place. */
  p = program_new (FUZZ_CONFIG_STEREO);
  put_process_synth (p, FALSE, 1 | (1 << 1), 960, 20);
  put_process_synth (p, FALSE, 2 << 1, 480, 21);
  put_process_synth (p, FALSE, 1 | (3 << 1), 700, 22);
  put_process_synth (p, FALSE, 3 << 1, 5, 23);
  put_op (p, FUZZ_OP_DRAIN, FALSE, 0);
  write_program ("seed-stereo-side-outputs", p);

  /* 16 kHz int8 model, A to B and back. */
  p = program_new (FUZZ_CONFIG_MODEL_1);
  put_process_synth (p, FALSE, 0, 400, 30);
  put_migrate_synth (p, 333, 31);
  put_op (p, FUZZ_OP_MIGRATE, TRUE, 0);
  put_u16 (p, 481);
  put_u8 (p, FUZZ_SIGNAL_S16);
  for (i = 0; i < 481; i++)
    put_u16 (p, (guint16) (i * 977));
  put_op (p, FUZZ_OP_DRAIN, TRUE, 0);
  write_program ("seed-16k-migrate", p);

  /* Non-finite, denormal and huge samples. */
  p = program_new (0);
  for (i = 0; i < 8; i++)
    put_process_special (p, FALSE, 200 + 90 * i, i * 3);
  put_op (p, FUZZ_OP_DRAIN, FALSE, 0);
  write_program ("seed-special-values", p);

  /* Raw float bits. */
  p = program_new (FUZZ_CONFIG_STEREO);
  put_op (p, FUZZ_OP_PROCESS, FALSE, 0);
  put_u16 (p, 500);
  put_u8 (p, FUZZ_SIGNAL_RAW_F32);
  rand = g_rand_new_with_seed (40);
  for (i = 0; i < 500 * 2; i++)
    put_f32 (p, (gfloat) g_rand_double_range (rand, -1.0, 1.0));
  g_rand_free (rand);
  put_op (p, FUZZ_OP_DRAIN, FALSE, 0);
  write_program ("seed-raw-floats", p);

  /* Export, reset, imports from the bank with and without a dropping
   * reset, self-import, drain. */
  p = program_new (0);
  put_process_synth (p, FALSE, 0, 1200, 50);
  put_op (p, FUZZ_OP_EXPORT, FALSE, 0);
  put_op (p, FUZZ_OP_IMPORT_BANK, TRUE, 0);
  put_u8 (p, 0);
  put_op (p, FUZZ_OP_RESET, TRUE, 0);
  put_op (p, FUZZ_OP_DRAIN, TRUE, 0);
  put_process_synth (p, TRUE, 0, 100, 51);
  put_op (p, FUZZ_OP_IMPORT_BANK, FALSE, 0);
  put_u8 (p, 0);
  put_op (p, FUZZ_OP_RESET, FALSE, 1);
  put_op (p, FUZZ_OP_SELF_IMPORT, FALSE, 0);
  put_process_synth (p, FALSE, 0, 50, 52);
  put_op (p, FUZZ_OP_DRAIN, FALSE, 0);
  write_program ("seed-export-reset-import", p);

  /* Mutated imports: history and hidden bytes, resealed. */
  p = program_new (0);
  put_process_synth (p, FALSE, 0, 900, 60);
  put_op (p, FUZZ_OP_EXPORT, FALSE, 0);
  put_op (p, FUZZ_OP_IMPORT_MUTANT, FALSE, 1);
  put_u8 (p, 0);
  put_u8 (p, 4);
  put_xor (p, 100, 0x7f);
  put_xor (p, 103, 0xc0);
  put_xor (p, 2000, 0xff);
  put_xor (p, 5000, 0x40);
  put_process_synth (p, FALSE, 0, 700, 61);
  put_op (p, FUZZ_OP_DRAIN, FALSE, 0);
  write_program ("seed-mutated-import", p);

  /* Untrusted imports: runs of special values over a mono 48 kHz export of
   * model 0 (floats: 22 of header, 56 hidden, then the history: 960 STFT,
   * ..., the partial-frame position and the pre-roll last), resealed. */
  for (i = 0; i < 3; i++) {
    static const guint8 values[]
        = { FUZZ_SPECIAL_3E38, FUZZ_SPECIAL_NAN, FUZZ_SPECIAL_FLT_MAX };
    static const guint16 first[] = { 78, 22, 22 };
    static const guint16 count[] = { 960, 56 + 1935 - 2, 56 };
    static const gchar *const names[] = { "seed-import-huge-stft-history",
      "seed-import-nan-state", "seed-import-max-hidden" };
    guint at;

    p = program_new (0);
    put_process_synth (p, FALSE, 0, 1100, 62);
    put_op (p, FUZZ_OP_EXPORT, FALSE, 0);
    put_op (p, FUZZ_OP_IMPORT_MUTANT, FALSE, 1);
    put_u8 (p, 0);
    put_u8 (p, (count[i] + 255) / 256);
    for (at = first[i]; at < first[i] + count[i]; at += 256)
      put_float_run (p, at, values[i], MIN (256, first[i] + count[i] - at));
    put_process_synth (p, FALSE, 0, 700, 63);
    put_op (p, FUZZ_OP_DRAIN, FALSE, 0);
    write_program (names[i], p);
  }

  /* Other shapes: B stereo, B on the other model; exports refused. */
  p = program_new (2 << FUZZ_CONFIG_B_SHIFT);
  put_process_synth (p, FALSE, 0, 300, 70);
  put_op (p, FUZZ_OP_EXPORT, FALSE, 0);
  put_op (p, FUZZ_OP_IMPORT_BANK, TRUE, 0);
  put_u8 (p, 0);
  put_migrate_synth (p, 10, 71);
  write_program ("seed-other-channels", p);

  p = program_new (3 << FUZZ_CONFIG_B_SHIFT);
  put_process_synth (p, TRUE, 0, 300, 72);
  put_op (p, FUZZ_OP_EXPORT, TRUE, 1 << 1);
  put_op (p, FUZZ_OP_IMPORT_BANK, FALSE, 0);
  put_u8 (p, 1);
  put_op (p, FUZZ_OP_IMPORT_RAW, FALSE, 1);
  put_u16 (p, 8);
  g_byte_array_append (p, (const guint8 *) "RNNS\1\0\0\0", 8);
  write_program ("seed-other-model", p);

  /* VAD gate and attenuation limit (the other settings near their
   * defaults, level normalisation on, hum removal off). */
  p = program_new (FUZZ_CONFIG_STEREO);
  put_settings (p, 12.0f, 200, 3, 1.5f, 0.5f, 1.0f, 0.9f, 1);
  put_process_synth (p, FALSE, 0, 1441, 80);
  put_process_synth (p, FALSE, 0, 1441, 0);
  put_migrate_synth (p, 1000, 81);
  write_program ("seed-settings-vad-gate", p);

  /* Settings out of range: NaN, infinities, negative, too large; then
   * back to in-range values mid-stream, and a migration. */
  p = program_new (0);
  put_settings (p, -INFINITY, 0, 0, NAN, INFINITY, -1.0f, 2.0f, 2);
  put_process_synth (p, FALSE, 0, 1441, 80);
  put_settings (p, NAN, 0, 255, 1e30f, -0.0f, NAN, NAN, 3);
  put_process_synth (p, FALSE, 0, 961, 0);
  put_migrate_synth (p, 1000, 81);
  write_program ("seed-settings-out-of-range", p);
}

int
main (int argc, char **argv)
{
  if (argc < 2 || argc > 3) {
    fprintf (stderr, "usage: %s OUTDIR [UNIT_DATA_DIR]\n", argv[0]);
    return 2;
  }
  out_dir = argv[1];
  make_snapshot_seeds ();
  make_model_seeds (argc == 3 ? argv[2] : NULL);
  make_processor_seeds ();
  return 0;
}
