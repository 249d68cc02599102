/* rnndenoise — fuzzing: what the harnesses, the replay driver and the seed
 * generator share
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * See docs/fuzzing.md. Each harness defines LLVMFuzzerTestOneInput(); it is
 * linked either with libFuzzer (clang, -fsanitize=fuzzer) or with
 * replay_main.c, which feeds it the files of a corpus.
 */
#ifndef FUZZ_COMMON_H
#define FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include <glib.h>

#include "dsp/dsp_model.h"
#include "state/rnn_state_descriptor.h"

G_BEGIN_DECLS

/* The libFuzzer entry point, defined once per harness. Returns 0. */
int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

/* Aborts (so that libFuzzer saves the input) unless @cond holds. */
#define FUZZ_CHECK(cond, ...) \
  do { \
    if (G_UNLIKELY (!(cond))) \
      fuzz_fail (__FILE__, __LINE__, #cond, __VA_ARGS__); \
  } while (0)

G_NORETURN void fuzz_fail (const gchar *file, gint line, const gchar *cond,
    const gchar *format, ...) G_GNUC_PRINTF (4, 5);

/**
 * FuzzInput:
 * @data: the input bytes
 * @size: their number
 * @pos: the next byte to take
 *
 * A cursor that takes values from the front of the input. Past the end it
 * gives zeros, so every input is a complete program.
 */
typedef struct
{
  const guint8 *data;
  gsize size;
  gsize pos;
} FuzzInput;

void fuzz_input_init (FuzzInput *in, const guint8 *data, gsize size);
gboolean fuzz_input_done (const FuzzInput *in);
guint8 fuzz_input_u8 (FuzzInput *in);
guint16 fuzz_input_u16 (FuzzInput *in);
guint32 fuzz_input_u32 (FuzzInput *in);
gfloat fuzz_input_f32 (FuzzInput *in);
const guint8 *fuzz_input_bytes (FuzzInput *in, gsize wanted, gsize *got);

/* Little-endian helpers and the two checksums of the formats. */
guint32 fuzz_get_u32 (const guint8 *p);
void fuzz_put_u32 (guint8 *p, guint32 v);
guint64 fuzz_fnv1a64 (const guint8 *data, gsize size);
void fuzz_reseal_crc (guint8 *data, gsize size);
void fuzz_reseal_model (guint8 *data, gsize size);
gboolean fuzz_all_finite (const gfloat *values, gsize n);

/* Allocation accounting around one call (AddressSanitizer builds only, where
 * the sanitizer's malloc hooks see every allocation; elsewhere it records
 * nothing and fuzz_alloc_tracking() is FALSE). */
typedef struct
{
  gsize largest; /* bytes of the largest single allocation */
  gsize total;   /* bytes of all allocations */
  gsize count;   /* allocations */
} FuzzAllocStats;

gboolean fuzz_alloc_tracking (void);
void fuzz_alloc_begin (void);
void fuzz_alloc_end (FuzzAllocStats *stats);

/* The fixed streams fuzz_snapshot imports into: one state layout in three
 * element types (F32, S16, S8 with a zero point), and a stereo S8 one with
 * no DSP history. */
#define FUZZ_SNAPSHOT_MODEL_ID G_GUINT64_CONSTANT (0x0123456789abcdef)
#define FUZZ_SNAPSHOT_N_TARGETS 4

void fuzz_snapshot_target (guint index, RnnStateDescriptor *desc);

/* The models fuzz_processor runs (model_helper.c, fixed seeds): 0 is the
 * default network with f32 weights on 48 kHz feature layout 3 (with the
 * pitch search), 1 the default network at 16 kHz with int8 weights. Built
 * once per process; never freed. */
#define FUZZ_PROCESSOR_N_MODELS 2

DspModel *fuzz_processor_model (guint index);
GBytes *fuzz_processor_model_bytes (guint index);

/* The program fuzz_processor reads from its input (docs/fuzzing.md):
 * a configuration byte, then operations of one opcode byte each (low four
 * bits: the operation, modulo FUZZ_N_OPS; bit 4: processor B instead of A;
 * bits 5..7: flags) followed by their arguments. Past the end of the input
 * every value reads as zero. */
typedef enum
{
  /* u16 n (modulo 3 hops + 2), then a signal (FuzzSignal); flag bit 0: in
   * place; flag bits 1..2: side output none, F32, S16, S8. */
  FUZZ_OP_PROCESS = 0,
  /* flag bit 0: also drop a pending import. */
  FUZZ_OP_RESET = 1,
  /* into bank entry (flags >> 1) % 4. */
  FUZZ_OP_EXPORT = 2,
  /* u8 bank entry. */
  FUZZ_OP_IMPORT_BANK = 3,
  /* u8 bank entry, u8 k (modulo 9), k mutations: u8 kind, then for an even
   * kind u16 byte offset, u8 xor mask; for an odd kind u16 float index, u8
   * special value, u8 run length - 1. Flag bit 0: reseal the checksum. */
  FUZZ_OP_IMPORT_MUTANT = 4,
  /* u16 n (modulo 4097), n bytes; flag bit 0: reseal the checksum. */
  FUZZ_OP_IMPORT_RAW = 5,
  FUZZ_OP_DRAIN = 6,
  /* f32 attenuation limit (dB), u8 VAD threshold x 255, u8 hold frames. */
  FUZZ_OP_SETTINGS = 7,
  /* u16 n, then a signal: export to the other processor, run both. */
  FUZZ_OP_MIGRATE = 8,
  FUZZ_OP_SELF_IMPORT = 9,
  FUZZ_N_OPS = 10
} FuzzOp;

#define FUZZ_OP_TARGET_B 0x10u

/* Configuration byte: bit 0 model of A; bit 1 A has two channels; bits 2..3
 * what B is: 0 or 1 the same shape as A, 2 the other channel count, 3 the
 * other model. */
#define FUZZ_CONFIG_MODEL_1 0x01u
#define FUZZ_CONFIG_STEREO 0x02u
#define FUZZ_CONFIG_B_SHIFT 2

/* Special sample values (NaN, infinities, extremes, denormals, the
 * processor's clipping level), by index modulo their number. */
gfloat fuzz_special_value (guint index);

#define FUZZ_SPECIAL_NAN 0
#define FUZZ_SPECIAL_FLT_MAX 4
#define FUZZ_SPECIAL_ZERO 11
#define FUZZ_SPECIAL_3E38 23

/* Signal byte of PROCESS and MIGRATE (low two bits): raw f32 from the input,
 * s16 from the input, one special value (next byte: its index), or a
 * deterministic speech-like signal (next byte: its seed). */
typedef enum
{
  FUZZ_SIGNAL_RAW_F32 = 0,
  FUZZ_SIGNAL_S16 = 1,
  FUZZ_SIGNAL_SPECIAL = 2,
  FUZZ_SIGNAL_SYNTH = 3
} FuzzSignal;

G_END_DECLS

#endif /* FUZZ_COMMON_H */
