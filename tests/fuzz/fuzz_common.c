/* rnndenoise — fuzzing: what the harnesses, the replay driver and the seed
 * generator share
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dsp/dsp_frame_config.h"
#include "state/rnn_state_snapshot.h"
#include "tests/fuzz/fuzz_common.h"
#include "tests/unit/model_helper.h"

/* AddressSanitizer, as gcc and clang announce it. */
#if defined(__SANITIZE_ADDRESS__)
#define FUZZ_HAVE_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FUZZ_HAVE_ASAN 1
#endif
#endif

void
fuzz_fail (const gchar *file, gint line, const gchar *cond, const gchar *format,
    ...)
{
  va_list args;

  fprintf (stderr, "%s:%d: fuzz check failed: %s: ", file, line, cond);
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
  fflush (stderr);
  abort ();
}

void
fuzz_input_init (FuzzInput *in, const guint8 *data, gsize size)
{
  in->data = data;
  in->size = size;
  in->pos = 0;
}

gboolean
fuzz_input_done (const FuzzInput *in)
{
  return in->pos >= in->size;
}

guint8
fuzz_input_u8 (FuzzInput *in)
{
  return in->pos < in->size ? in->data[in->pos++] : 0;
}

guint16
fuzz_input_u16 (FuzzInput *in)
{
  guint16 lo = fuzz_input_u8 (in);

  return lo | (guint16) (fuzz_input_u8 (in) << 8);
}

guint32
fuzz_input_u32 (FuzzInput *in)
{
  guint32 lo = fuzz_input_u16 (in);

  return lo | ((guint32) fuzz_input_u16 (in) << 16);
}

gfloat
fuzz_input_f32 (FuzzInput *in)
{
  guint32 bits = fuzz_input_u32 (in);
  gfloat f;

  memcpy (&f, &bits, 4);
  return f;
}

/* Returns a pointer to the next MIN (wanted, bytes left) bytes, their number
 * in *got, and moves past them. */
const guint8 *
fuzz_input_bytes (FuzzInput *in, gsize wanted, gsize *got)
{
  const guint8 *p = in->data + in->pos;

  *got = MIN (wanted, in->size - in->pos);
  in->pos += *got;
  return p;
}

guint32
fuzz_get_u32 (const guint8 *p)
{
  guint32 v;

  memcpy (&v, p, 4);
  return GUINT32_FROM_LE (v);
}

void
fuzz_put_u32 (guint8 *p, guint32 v)
{
  v = GUINT32_TO_LE (v);
  memcpy (p, &v, 4);
}

/* FNV-1a 64, the model id of docs/model-format.md. */
guint64
fuzz_fnv1a64 (const guint8 *data, gsize size)
{
  guint64 h = G_GUINT64_CONSTANT (0xcbf29ce484222325);
  gsize i;

  for (i = 0; i < size; i++) {
    h ^= data[i];
    h *= G_GUINT64_CONSTANT (0x100000001b3);
  }
  return h;
}

/* Rewrites the trailing CRC-32 of a snapshot (or any buffer sealed the same
 * way) so that a mutation gets past the checksum to the checks behind it. */
void
fuzz_reseal_crc (guint8 *data, gsize size)
{
  if (size >= 4)
    fuzz_put_u32 (data + size - 4, rnn_state_crc32 (data, size - 4));
}

/* The same for a model file: its file_size field, then its CRC-32. */
void
fuzz_reseal_model (guint8 *data, gsize size)
{
  if (size >= 12)
    fuzz_put_u32 (data + 8, (guint32) size);
  fuzz_reseal_crc (data, size);
}

gboolean
fuzz_all_finite (const gfloat *values, gsize n)
{
  gsize i;

  for (i = 0; i < n; i++)
    if (!isfinite (values[i]))
      return FALSE;
  return TRUE;
}

/* clang-format off */
static const gfloat special_values[] = {
  NAN, -NAN, INFINITY, -INFINITY, FLT_MAX, -FLT_MAX, FLT_MIN, -FLT_MIN,
  1e-45f, -1e-45f, 1e-40f, 0.0f, -0.0f, 1.0f, -1.0f, 0.5f,
  65536.0f, -65536.0f, 65537.0f, 1e30f, -1e30f, 1e-20f, 32767.0f, 3e38f,
};
/* clang-format on */

G_STATIC_ASSERT (G_N_ELEMENTS (special_values) == 24);

gfloat
fuzz_special_value (guint index)
{
  return special_values[index % G_N_ELEMENTS (special_values)];
}

#ifdef FUZZ_HAVE_ASAN
/* From <sanitizer/allocator_interface.h>, which gcc does not install. */
int __sanitizer_install_malloc_and_free_hooks (
    void (*malloc_hook) (const volatile void *ptr, size_t size),
    void (*free_hook) (const volatile void *ptr));

static gboolean alloc_hooks_installed;
static gboolean alloc_armed;
static FuzzAllocStats alloc_stats;

static void
alloc_hook (const volatile void *ptr, size_t size)
{
  (void) ptr;
  if (!alloc_armed)
    return;
  alloc_stats.largest = MAX (alloc_stats.largest, size);
  alloc_stats.total += size;
  alloc_stats.count++;
}

static void
free_hook (const volatile void *ptr)
{
  (void) ptr;
}
#endif

/* TRUE if fuzz_alloc_begin()/_end() measure anything in this build. */
gboolean
fuzz_alloc_tracking (void)
{
#ifdef FUZZ_HAVE_ASAN
  return TRUE;
#else
  return FALSE;
#endif
}

/* Starts counting allocations (of this thread's calls; the harnesses run no
 * other thread). */
void
fuzz_alloc_begin (void)
{
#ifdef FUZZ_HAVE_ASAN
  if (!alloc_hooks_installed) {
    __sanitizer_install_malloc_and_free_hooks (alloc_hook, free_hook);
    alloc_hooks_installed = TRUE;
  }
  memset (&alloc_stats, 0, sizeof (alloc_stats));
  alloc_armed = TRUE;
#endif
}

/* Stops counting and returns what fuzz_alloc_begin() saw (zeros when
 * fuzz_alloc_tracking() is FALSE). */
void
fuzz_alloc_end (FuzzAllocStats *stats)
{
#ifdef FUZZ_HAVE_ASAN
  alloc_armed = FALSE;
  *stats = alloc_stats;
#else
  memset (stats, 0, sizeof (*stats));
#endif
}

/**
 * fuzz_snapshot_target:
 * @index: 0..FUZZ_SNAPSHOT_N_TARGETS - 1
 * @desc: filled
 *
 * 0..2: batch 1, GRU layers {24, 32}, 64 history values, as F32, as S16
 * (symmetric, |v| <= 1) and as S8 (scale 1/100, zero point 3 in layer 0 and
 * -5 in layer 1). 3: batch 2, layers {8, 4, 8}, no history, S8 symmetric.
 */
void
fuzz_snapshot_target (guint index, RnnStateDescriptor *desc)
{
  static const guint32 hidden_a[] = { 24, 32 };
  static const guint32 hidden_b[] = { 8, 4, 8 };

  g_assert (index < FUZZ_SNAPSHOT_N_TARGETS);
  if (index < 3) {
    rnn_state_descriptor_init (desc, FUZZ_SNAPSHOT_MODEL_ID, RNN_STATE_CELL_GRU,
        1, G_N_ELEMENTS (hidden_a), hidden_a, 64);
  } else {
    rnn_state_descriptor_init (desc, FUZZ_SNAPSHOT_MODEL_ID, RNN_STATE_CELL_GRU,
        2, G_N_ELEMENTS (hidden_b), hidden_b, 0);
  }
  switch (index) {
    case 1:
      rnn_state_descriptor_set_element_type (desc, RNN_STATE_ELEMENT_S16, 1.0f);
      break;
    case 2:
      rnn_state_descriptor_set_element_type (desc, RNN_STATE_ELEMENT_S8, 1.27f);
      desc->zero_point[0] = 3;
      desc->zero_point[1] = -5;
      break;
    case 3:
      rnn_state_descriptor_set_element_type (desc, RNN_STATE_ELEMENT_S8, 1.0f);
      break;
    default:
      break;
  }
  g_assert (rnn_state_descriptor_validate (desc, NULL));
}

static GBytes *
build_processor_model (guint index)
{
  ModelHelperSpec spec;

  if (index == 0) {
    /* Feature layout 3, as the shipped 48 kHz model: the pitch search and
     * its input history are fuzzed too. */
    model_helper_spec_init_default (&spec, DSP_WEIGHT_F32, 1234);
    g_assert (dsp_frame_config_init_layout (&spec.config, 48000,
        DSP_FEATURE_LAYOUT_PITCH_V3, NULL));
    spec.layers[0].input_size
        = dsp_feature_layout_n_features (spec.config.feature_layout_id,
            spec.config.n_bands);
    spec.layers[3].output_size = spec.config.n_bands;
  } else {
    /* As test_16k_model: the same layers on the 16 kHz frame layout, with
     * int8x8 weights (quantised inputs) after the first layer. */
    model_helper_spec_init_default (&spec, DSP_WEIGHT_S8X8, 4321);
    g_assert (dsp_frame_config_init_default (&spec.config, 16000, NULL));
    spec.layers[0].input_size
        = dsp_feature_layout_n_features (spec.config.feature_layout_id,
            spec.config.n_bands);
    spec.layers[3].output_size = spec.config.n_bands;
  }
  return model_helper_build (&spec);
}

static GBytes *processor_model_bytes[FUZZ_PROCESSOR_N_MODELS];
static DspModel *processor_models[FUZZ_PROCESSOR_N_MODELS];

/**
 * fuzz_processor_model_bytes:
 * @index: 0..FUZZ_PROCESSOR_N_MODELS - 1
 *
 * Returns: (transfer none): the model file of fuzz_processor_model (@index).
 */
GBytes *
fuzz_processor_model_bytes (guint index)
{
  g_assert (index < FUZZ_PROCESSOR_N_MODELS);
  if (processor_model_bytes[index] == NULL)
    processor_model_bytes[index] = build_processor_model (index);
  return processor_model_bytes[index];
}

/**
 * fuzz_processor_model:
 * @index: 0..FUZZ_PROCESSOR_N_MODELS - 1
 *
 * Returns: (transfer none): the loaded model, kept for the whole process.
 */
DspModel *
fuzz_processor_model (guint index)
{
  GError *error = NULL;

  g_assert (index < FUZZ_PROCESSOR_N_MODELS);
  if (processor_models[index] == NULL) {
    processor_models[index]
        = dsp_model_new_from_bytes (fuzz_processor_model_bytes (index), &error);
    if (processor_models[index] == NULL)
      g_error ("fuzz model %u does not load: %s", index, error->message);
  }
  return processor_models[index];
}
