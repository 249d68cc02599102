/* rnndenoise — fuzzing: operation sequences on DspProcessor
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * The input is a small program (fuzz_common.h, docs/fuzzing.md) run on two
 * processors A and B of fixed-seed random models (model_helper.c): process
 * chunks of arbitrary samples (raw floats with NaN, infinities, denormals
 * and huge values, s16, special values, a speech-like signal), with or
 * without a side output, in place or not; reset; export into a bank of
 * four snapshots; import a bank entry, a mutated bank entry or raw input
 * bytes (either with its checksum resealed); drain; change any setting to
 * any value (NaN and infinities included);
 * self-import; migrate A to B (or B to A) and compare. Checked after every
 * operation:
 * - process and drain outputs are always finite;
 * - the sample accounting of dsp_processor.c: a call of n samples from h
 *   held gives n - (min (latency, h + n) - h) samples and holds
 *   min (latency, h + n); a drain gives exactly the held samples, so after a
 *   reset input and output totals agree; imports carry the exporter's count;
 * - the report: non-finite input samples counted exactly, VAD in 0..1 (-1
 *   with no frame);
 * - the side output is the slot's final state in the side format, and is
 *   untouched by a call that completed no frame;
 * - every export imports (parse, validate, convert) into a slot of the
 *   same shape and gives back the stream's state bit for bit; it is finite
 *   unless an untrusted import was taken;
 * - an import is accepted exactly when the shape (model, channels) matches;
 *   a refused import leaves the state and any pending import as they were;
 * - a drain leaves the state bit-identical;
 * - a migrated stream continues bit-exactly (outputs, report and state).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dsp/dsp_processor.h"
#include "state/rnn_state_error.h"
#include "state/rnn_state_quant.h"
#include "tests/fuzz/fuzz_common.h"

#define N_BANK 4
#define MAX_MUTATIONS 8
#define MAX_RAW_IMPORT 4096
/* A PROCESS takes at most this many hops (plus one sample) per channel... */
#define CHUNK_HOPS 3
/* ...and each stream this many hops of work per input (drains included), so
 * that an input's cost is bounded whatever its length. */
#define BUDGET_HOPS 16
#define MAX_CHANNELS 2

typedef struct
{
  DspProcessor *proc;
  guint model;
  guint channels;
  guint hop;
  guint latency;
  gsize budget; /* samples per channel of work left */

  /* The sample accounting. */
  gboolean known;   /* held is known (not after an untrusted import) */
  guint held;       /* samples per channel inside the processor */
  gboolean finite;  /* no untrusted import since the last reset */
  gboolean counted; /* no import since the last reset: held == in - out */
  guint64 in;       /* samples taken since the last reset */
  guint64 out;      /* samples given since the last reset */
  gboolean pending; /* an accepted import waits for the next call */
  gboolean pending_known;
  guint pending_held;
  gboolean pending_finite;

  RnnStateSlot *probe; /* owned; a plain slot of the same descriptor */
} Stream;

typedef struct
{
  GBytes *bytes; /* owned; NULL when empty */
  guint model;
  guint channels;
  gboolean known;
  guint held;
  gboolean finite;
} BankEntry;

typedef struct
{
  FuzzInput in;
  Stream streams[2];
  BankEntry bank[N_BANK];
  gfloat *x;  /* input samples */
  gfloat *y;  /* output samples */
  gfloat *y2; /* output samples of a migration's second stream */
  gsize buffer_len;
} Run;

/* RNNDENOISE_FUZZ_TRACE=1 prints each operation and its outcome (to read
 * what a reproducer does). */
static gboolean
trace_enabled (void)
{
  static gint enabled = -1;

  if (enabled < 0)
    enabled = g_getenv ("RNNDENOISE_FUZZ_TRACE") != NULL;
  return enabled;
}

static void trace (const gchar *format, ...) G_GNUC_PRINTF (1, 2);

static void
trace (const gchar *format, ...)
{
  va_list args;

  if (!trace_enabled ())
    return;
  va_start (args, format);
  vfprintf (stderr, format, args);
  va_end (args);
  fputc ('\n', stderr);
}

static gdouble
max_abs (const gfloat *values, gsize n)
{
  gdouble m = 0.0;
  gsize i;

  for (i = 0; i < n; i++)
    m = MAX (m, fabs (values[i]));
  return m;
}

static void
stream_init (Stream *s, guint model, guint channels)
{
  GError *error = NULL;

  memset (s, 0, sizeof (*s));
  s->model = model;
  s->channels = channels;
  s->proc = dsp_processor_new (fuzz_processor_model (model), channels, &error);
  g_assert (s->proc != NULL);
  s->hop = dsp_processor_get_hop (s->proc);
  s->latency = dsp_processor_get_latency (s->proc);
  s->budget = (gsize) BUDGET_HOPS * s->hop;
  s->known = TRUE;
  s->finite = TRUE;
  s->counted = TRUE;
}

static void
stream_clear (Stream *s)
{
  dsp_processor_free (s->proc);
  rnn_state_slot_free (s->probe);
}

static gboolean
same_shape (const Stream *a, guint model, guint channels)
{
  return a->model == model && a->channels == channels;
}

static RnnStateSlot *
stream_slot (Stream *s)
{
  return dsp_processor_get_slot (s->proc);
}

/* Fills run->x with n x channels samples of the signal the input names, and
 * returns how many of them are not finite. */
static guint
fill_signal (Run *run, guint n, guint channels)
{
  gsize total = (gsize) n * channels, i;
  guint8 kind = fuzz_input_u8 (&run->in);
  guint n_bad = 0;

  switch (kind & 3) {
    case FUZZ_SIGNAL_RAW_F32:
      for (i = 0; i < total; i++)
        run->x[i] = fuzz_input_f32 (&run->in);
      break;
    case FUZZ_SIGNAL_S16:
      for (i = 0; i < total; i++)
        run->x[i] = (gint16) fuzz_input_u16 (&run->in) / 32768.0f;
      break;
    case FUZZ_SIGNAL_SPECIAL: {
      gfloat v = fuzz_special_value (fuzz_input_u8 (&run->in));

      for (i = 0; i < total; i++)
        run->x[i] = v;
      break;
    }
    default: {
      /* Two harmonics and noise, at a level of -60..+97.5 dB re 1.0 (so
       * up to beyond the processor's clipping at 65536). */
      guint32 seed = fuzz_input_u8 (&run->in);
      gdouble gain = pow (10.0, ((seed % 64) * 2.5 - 60.0) / 20.0);
      guint32 lcg = seed * 2654435761u + 1;

      for (i = 0; i < total; i++) {
        gdouble t = (gdouble) (i / channels) / 16000.0;

        lcg = lcg * 1664525u + 1013904223u;
        run->x[i] = (gfloat) (gain
            * (0.5 * sin (2 * G_PI * (150.0 + seed) * t)
                + 0.2 * sin (2 * G_PI * 3 * (150.0 + seed) * t)
                + 0.1 * ((lcg >> 8) / 8388608.0 - 1.0)));
      }
      break;
    }
  }
  for (i = 0; i < total; i++)
    n_bad += !isfinite (run->x[i]);
  return n_bad;
}

/* Side output formats: none, F32, S16, S8. */
static gboolean
side_descriptor (Stream *s, guint side_type, RnnStateDescriptor *desc)
{
  static const RnnStateElementType types[]
      = { RNN_STATE_ELEMENT_F32, RNN_STATE_ELEMENT_S16, RNN_STATE_ELEMENT_S8 };

  if (side_type == 0)
    return FALSE;
  *desc = *rnn_state_slot_get_descriptor (stream_slot (s));
  rnn_state_descriptor_set_element_type (desc, types[side_type - 1], 1.0f);
  return TRUE;
}

/* The side output holds the slot's final state in its own format. */
static void
check_side_output (Stream *s, const RnnStateDescriptor *side_desc,
    gconstpointer side)
{
  gsize n = rnn_state_descriptor_n_values (side_desc);
  gsize bytes = rnn_state_descriptor_hidden_bytes (side_desc);
  gfloat *values = g_new (gfloat, n);
  gpointer expected = g_malloc (bytes);

  rnn_state_slot_peek (stream_slot (s), values, NULL, NULL);
  rnn_state_quantize (side_desc, values, expected);
  FUZZ_CHECK (memcmp (expected, side, bytes) == 0,
      "the side output is not the final state in its format");
  g_free (expected);
  g_free (values);
}

/* dsp_processor_process() with every check; updates the accounting. */
static guint
process_checked (Stream *s, const gfloat *in, gfloat *out, guint n, guint n_bad,
    guint side_type, DspProcessorReport *report)
{
  RnnStateDescriptor side_desc;
  gboolean want_side = side_descriptor (s, side_type, &side_desc);
  gsize side_bytes
      = want_side ? rnn_state_descriptor_hidden_bytes (&side_desc) : 0;
  guint8 *side = want_side ? g_malloc (side_bytes) : NULL;
  guint produced, expected_held;

  if (want_side)
    memset (side, 0xa5, side_bytes);
  if (n > 0 && s->pending) {
    /* The call applies the pending import first. */
    s->pending = FALSE;
    s->known = s->pending_known;
    s->held = s->pending_held;
    s->finite = s->pending_finite;
    s->counted = FALSE;
  }

  produced = dsp_processor_process (s->proc, in, out, n,
      want_side ? &side_desc : NULL, side, side_bytes, report);

  if (trace_enabled ())
    trace ("  max |y| %g", max_abs (out, (gsize) produced * s->channels));
  trace ("  %u samples in, %u out, %u frames, %u held, %u non-finite in, "
         "%u state resets, %u gated, vad max %g",
      n, produced, report->frames, report->held, report->nonfinite_samples,
      report->state_resets, report->gated_frames, (gdouble) report->vad_max);
  FUZZ_CHECK (produced <= n, "%u samples out of %u", produced, n);
  FUZZ_CHECK (fuzz_all_finite (out, (gsize) produced * s->channels),
      "a process call gave non-finite samples");
  FUZZ_CHECK (report->nonfinite_samples == n_bad,
      "%u non-finite input samples reported, %u given",
      report->nonfinite_samples, n_bad);
  if (report->frames == 0) {
    FUZZ_CHECK (report->vad_max == -1.0f && report->vad_mean == -1.0f,
        "VAD %g/%g without a frame", (gdouble) report->vad_max,
        (gdouble) report->vad_mean);
  } else {
    FUZZ_CHECK (report->vad_max >= 0.0f && report->vad_max <= 1.0f
            && report->vad_mean >= 0.0f && report->vad_mean <= 1.0f,
        "VAD %g/%g", (gdouble) report->vad_max, (gdouble) report->vad_mean);
    FUZZ_CHECK (report->frames <= n / s->hop + 1, "%u frames in %u samples",
        report->frames, n);
  }
  FUZZ_CHECK (report->gated_frames <= report->frames * s->channels
          && report->state_resets <= report->frames,
      "report");

  if (n == 0) {
    FUZZ_CHECK (produced == 0, "samples out of none");
  } else if (s->known) {
    expected_held = MIN (s->latency, s->held + n);
    FUZZ_CHECK (report->held == expected_held,
        "%u samples held after %u more, expected %u", report->held, n,
        expected_held);
    FUZZ_CHECK (produced == n - (expected_held - s->held),
        "%u samples out of %u with %u held before", produced, n, s->held);
    s->held = expected_held;
  } else {
    /* After an untrusted import: learn the count, check it is possible. */
    FUZZ_CHECK (report->held <= s->latency && report->held + produced >= n
            && report->held + produced - n <= s->latency,
        "%u samples out of %u, %u held", produced, n, report->held);
    s->held = report->held;
    s->known = TRUE;
  }
  s->in += n;
  s->out += produced;
  if (s->counted)
    FUZZ_CHECK (s->in - s->out == s->held,
        "%" G_GUINT64_FORMAT " in, %" G_GUINT64_FORMAT " out, %u held", s->in,
        s->out, s->held);

  if (want_side) {
    if (report->frames > 0) {
      check_side_output (s, &side_desc, side);
    } else {
      gsize i;

      for (i = 0; i < side_bytes; i++)
        FUZZ_CHECK (side[i] == 0xa5, "a call without a frame wrote the side");
    }
  }
  g_free (side);
  return produced;
}

/* The slot's whole state (hidden state, then history) and its generation:
 * a cheap way to prove an operation changed nothing. */
static gfloat *
peek_state (Stream *s, guint64 *generation, gsize *n_values)
{
  const RnnStateDescriptor *desc
      = rnn_state_slot_get_descriptor (stream_slot (s));
  gsize n_hidden = rnn_state_descriptor_n_values (desc);
  gfloat *values;

  *n_values = n_hidden + desc->history_size;
  values = g_new (gfloat, *n_values);
  rnn_state_slot_peek (stream_slot (s), values, values + n_hidden, generation);
  return values;
}

static void
check_state_unchanged (Stream *s, const gfloat *before, guint64 generation,
    const gchar *what)
{
  guint64 generation_after;
  gsize n;
  gfloat *after = peek_state (s, &generation_after, &n);

  FUZZ_CHECK (generation_after == generation
          && memcmp (before, after, n * sizeof (gfloat)) == 0,
      "%s changed the state", what);
  g_free (after);
}

/* Every export parses, fits the stream's descriptor, and imports into a
 * slot of that shape; while no untrusted import was taken, it is finite. */
static void
check_export (Stream *s, GBytes *bytes)
{
  const RnnStateDescriptor *desc
      = rnn_state_slot_get_descriptor (stream_slot (s));
  gsize n_hidden = rnn_state_descriptor_n_values (desc), n;
  GError *error = NULL;
  gfloat *imported, *state;
  guint64 generation;

  /* The import parses and validates the bytes against the descriptor. */
  if (s->probe == NULL)
    s->probe = rnn_state_slot_new (desc, NULL);
  FUZZ_CHECK (rnn_state_slot_import (s->probe, g_bytes_get_data (bytes, NULL),
                  g_bytes_get_size (bytes), &error),
      "an export does not import into a slot of its shape: %s", error->message);
  state = peek_state (s, &generation, &n);
  imported = g_new (gfloat, n);
  rnn_state_slot_read (s->probe, imported, imported + n_hidden);
  rnn_state_slot_writeback (s->probe, imported, imported + n_hidden, NULL, NULL,
      0);

  /* The export is the slot's state, bit for bit; finite unless something
   * untrusted came in. */
  FUZZ_CHECK (memcmp (imported, state, n * sizeof (gfloat)) == 0,
      "an export is not the stream's state");
  if (s->finite)
    FUZZ_CHECK (fuzz_all_finite (state, n), "an exported state is not finite");
  g_free (imported);
  g_free (state);
}

static GBytes *
export_checked (Stream *s)
{
  GBytes *bytes = dsp_processor_export (s->proc);

  check_export (s, bytes);
  return bytes;
}

/* Imports bytes into @s. @trusted: an export whose accounting is @from;
 * then the import must be accepted exactly when @shape_ok. Untrusted
 * bytes may go either way. A refusal must change nothing. */
static void
import_checked (Stream *s, const guint8 *data, gsize size, gboolean trusted,
    gboolean shape_ok, const BankEntry *from)
{
  GError *error = NULL;
  guint64 generation;
  gboolean accepted;
  gsize n;
  gfloat *before = peek_state (s, &generation, &n);

  accepted = dsp_processor_import (s->proc, data, size, &error);
  trace ("  import of %" G_GSIZE_FORMAT " bytes: %s", size,
      accepted ? "accepted" : error->message);
  if (trusted)
    FUZZ_CHECK (accepted == shape_ok, "an export of the %s shape was %s: %s",
        shape_ok ? "same" : "other", accepted ? "accepted" : "refused",
        error != NULL ? error->message : "");
  if (!accepted) {
    FUZZ_CHECK (error != NULL && error->domain == RNN_STATE_ERROR,
        "a refused import without an RNN_STATE_ERROR");
    if (trusted)
      FUZZ_CHECK (error->code == RNN_STATE_ERROR_MISMATCH,
          "an export of another shape refused with code %d", error->code);
    g_error_free (error);
    FUZZ_CHECK (rnn_state_slot_has_pending_import (stream_slot (s))
            == s->pending,
        "a refused import changed the pending import");
    check_state_unchanged (s, before, generation, "a refused import");
  } else {
    FUZZ_CHECK (rnn_state_slot_has_pending_import (stream_slot (s)),
        "an accepted import is not pending");
    s->pending = TRUE;
    s->pending_known = trusted && from->known;
    s->pending_held = trusted ? from->held : 0;
    s->pending_finite = trusted && from->finite;
  }
  g_free (before);
}

static void
bank_entry_of (Stream *s, GBytes *bytes, BankEntry *entry)
{
  entry->bytes = bytes;
  entry->model = s->model;
  entry->channels = s->channels;
  entry->known = s->known;
  entry->held = s->held;
  entry->finite = s->finite;
}

static void
op_process (Run *run, Stream *s, guint flags)
{
  DspProcessorReport report;
  guint n = fuzz_input_u16 (&run->in) % (CHUNK_HOPS * s->hop + 2);
  gboolean in_place = (flags & 1) != 0;
  guint n_bad;

  n = MIN (n, s->budget);
  s->budget -= n;
  n_bad = fill_signal (run, n, s->channels);
  if (in_place) {
    memcpy (run->y, run->x, (gsize) n * s->channels * sizeof (gfloat));
    process_checked (s, run->y, run->y, n, n_bad, (flags >> 1) & 3, &report);
  } else {
    process_checked (s, run->x, run->y, n, n_bad, (flags >> 1) & 3, &report);
  }
}

static void
op_reset (Stream *s, guint flags)
{
  gboolean drop = (flags & 1) != 0;

  dsp_processor_reset (s->proc, drop);
  s->known = TRUE;
  s->held = 0;
  s->finite = TRUE;
  s->counted = TRUE;
  s->in = 0;
  s->out = 0;
  if (drop)
    s->pending = FALSE;
  FUZZ_CHECK (rnn_state_slot_has_pending_import (stream_slot (s)) == s->pending,
      "a reset (drop %d) left the pending import %d", drop, s->pending);
}

static void
op_drain (Run *run, Stream *s)
{
  guint64 generation;
  gfloat *before;
  guint drained;
  gsize n;

  if (s->budget < s->latency)
    return;
  s->budget -= s->latency;
  before = peek_state (s, &generation, &n);
  drained = dsp_processor_drain (s->proc, run->y);
  if (trace_enabled ())
    trace ("  %u samples drained, max |y| %g", drained,
        max_abs (run->y, (gsize) drained * s->channels));
  FUZZ_CHECK (drained <= s->latency, "%u samples drained", drained);
  FUZZ_CHECK (fuzz_all_finite (run->y, (gsize) drained * s->channels),
      "a drain gave non-finite samples");
  if (s->known)
    FUZZ_CHECK (drained == s->held, "%u samples drained, %u held", drained,
        s->held);
  if (s->counted)
    FUZZ_CHECK (s->out + drained == s->in,
        "%" G_GUINT64_FORMAT " + %u samples out, %" G_GUINT64_FORMAT " in",
        s->out, drained, s->in);
  check_state_unchanged (s, before, generation, "a drain");
  g_free (before);
}

/* Any float for each setting, NaN and infinities included: the setters
 * must take them. */
static void
op_settings (Run *run, Stream *s)
{
  DspProcessorSettings settings;
  guint8 flags;

  settings.attenuation_limit_db = fuzz_input_f32 (&run->in);
  settings.vad_threshold = fuzz_input_u8 (&run->in) / 255.0f;
  settings.vad_hold_frames = fuzz_input_u8 (&run->in);
  settings.speech_protection = fuzz_input_f32 (&run->in);
  settings.stationary_suppression = fuzz_input_f32 (&run->in);
  settings.harmonic_lift = fuzz_input_f32 (&run->in);
  settings.speech_hold = fuzz_input_f32 (&run->in);
  flags = fuzz_input_u8 (&run->in);
  settings.level_normalization = (flags & 1) != 0;
  settings.hum_removal = (flags & 2) != 0;
  dsp_processor_apply_settings (s->proc, &settings);
}

/* k mutations of a bank entry: a byte xor (u16 at, u8 mask), or, when the
 * kind byte is odd, a run of one special value over aligned floats (u16
 * float index, u8 value, u8 run length - 1), which reaches whole frames of
 * the hidden state and history. */
static void
op_import_mutant (Run *run, Stream *s, guint flags)
{
  BankEntry *entry = &run->bank[fuzz_input_u8 (&run->in) % N_BANK];
  guint k = fuzz_input_u8 (&run->in) % (MAX_MUTATIONS + 1), i, j;
  guint8 *bytes;
  gsize size, at;

  if (entry->bytes == NULL)
    return;
  bytes = g_bytes_unref_to_data (g_bytes_ref (entry->bytes), &size);
  for (i = 0; i < k; i++) {
    if (fuzz_input_u8 (&run->in) & 1) {
      gsize first = fuzz_input_u16 (&run->in) % (size / 4);
      gfloat v = fuzz_special_value (fuzz_input_u8 (&run->in));
      guint n = fuzz_input_u8 (&run->in) + 1;

      for (j = 0; j < n && first + j < size / 4; j++)
        memcpy (bytes + 4 * (first + j), &v, 4);
    } else {
      at = fuzz_input_u16 (&run->in) % size;
      bytes[at] ^= fuzz_input_u8 (&run->in);
    }
  }
  if (flags & 1)
    fuzz_reseal_crc (bytes, size);
  import_checked (s, bytes, size, FALSE, FALSE, NULL);
  g_free (bytes);
}

static void
op_import_raw (Run *run, Stream *s, guint flags)
{
  gsize wanted = fuzz_input_u16 (&run->in) % (MAX_RAW_IMPORT + 1), got;
  const guint8 *p = fuzz_input_bytes (&run->in, wanted, &got);
  guint8 *bytes = g_malloc (got + 1);

  memcpy (bytes, p, got);
  if (flags & 1)
    fuzz_reseal_crc (bytes, got);
  import_checked (s, bytes, got, FALSE, FALSE, NULL);
  g_free (bytes);
}

/* Exports @from, imports into @to and, when both have the same shape and
 * @from has no import pending, runs the same samples through both with the
 * same settings: the two must agree bit for bit. */
static void
op_migrate (Run *run, Stream *from, Stream *to)
{
  DspProcessorReport report_from, report_to;
  DspProcessorSettings settings;
  GBytes *bytes, *state_from, *state_to;
  gboolean same = same_shape (to, from->model, from->channels);
  BankEntry entry;
  guint n, n_bad, produced;
  gsize size;
  const guint8 *a, *b;

  n = fuzz_input_u16 (&run->in) % (CHUNK_HOPS * from->hop + 2);
  n = MIN (n, MIN (from->budget, to->budget));
  n_bad = fill_signal (run, n, from->channels);
  bytes = export_checked (from);
  bank_entry_of (from, bytes, &entry);
  import_checked (to, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
      TRUE, same, &entry);
  g_bytes_unref (bytes);
  /* A call of no samples does not start an invocation: nothing to compare
   * (the import stays pending). */
  if (!same || from->pending || n == 0)
    return;

  /* The settings as @from's setters left them: the comparison below also
   * checks that reading them back and applying them loses nothing. */
  dsp_processor_get_settings (from->proc, &settings);
  dsp_processor_apply_settings (to->proc, &settings);

  from->budget -= n;
  to->budget -= n;
  produced = process_checked (from, run->x, run->y, n, n_bad, 0, &report_from);
  FUZZ_CHECK (process_checked (to, run->x, run->y2, n, n_bad, 0, &report_to)
          == produced,
      "a migrated stream gives another sample count");
  FUZZ_CHECK (memcmp (run->y, run->y2,
                  (gsize) produced * from->channels * sizeof (gfloat))
          == 0,
      "a migrated stream does not continue bit-exactly");
  FUZZ_CHECK (memcmp (&report_from, &report_to, sizeof (report_from)) == 0,
      "a migrated stream reports otherwise");

  /* The states agree too, but for the generation and hence the CRC. */
  state_from = export_checked (from);
  state_to = export_checked (to);
  a = g_bytes_get_data (state_from, &size);
  b = g_bytes_get_data (state_to, NULL);
  FUZZ_CHECK (g_bytes_get_size (state_to) == size && memcmp (a, b, 48) == 0
          && memcmp (a + 56, b + 56, size - 60) == 0,
      "a migrated stream's state differs from its origin's");
  g_bytes_unref (state_to);
  g_bytes_unref (state_from);
}

static void
run_op (Run *run)
{
  guint8 code = fuzz_input_u8 (&run->in);
  Stream *s = &run->streams[(code & FUZZ_OP_TARGET_B) ? 1 : 0];
  Stream *other = &run->streams[(code & FUZZ_OP_TARGET_B) ? 0 : 1];
  guint flags = code >> 5;
  BankEntry *entry;
  GBytes *bytes;
  static const gchar *const names[]
      = { "process", "reset", "export", "import-bank", "import-mutant",
          "import-raw", "drain", "settings", "migrate", "self-import" };

  trace ("%s %c flags %u", names[(code & 0x0f) % FUZZ_N_OPS],
      (code & FUZZ_OP_TARGET_B) ? 'B' : 'A', flags);

  switch ((code & 0x0f) % FUZZ_N_OPS) {
    case FUZZ_OP_PROCESS:
      op_process (run, s, flags);
      break;
    case FUZZ_OP_RESET:
      op_reset (s, flags);
      break;
    case FUZZ_OP_EXPORT:
      entry = &run->bank[(flags >> 1) % N_BANK];
      g_clear_pointer (&entry->bytes, g_bytes_unref);
      bank_entry_of (s, export_checked (s), entry);
      break;
    case FUZZ_OP_IMPORT_BANK:
      entry = &run->bank[fuzz_input_u8 (&run->in) % N_BANK];
      if (entry->bytes != NULL)
        import_checked (s, g_bytes_get_data (entry->bytes, NULL),
            g_bytes_get_size (entry->bytes), TRUE,
            same_shape (s, entry->model, entry->channels), entry);
      break;
    case FUZZ_OP_IMPORT_MUTANT:
      op_import_mutant (run, s, flags);
      break;
    case FUZZ_OP_IMPORT_RAW:
      op_import_raw (run, s, flags);
      break;
    case FUZZ_OP_DRAIN:
      op_drain (run, s);
      break;
    case FUZZ_OP_SETTINGS:
      op_settings (run, s);
      break;
    case FUZZ_OP_MIGRATE:
      op_migrate (run, s, other);
      break;
    default: {
      BankEntry self;

      bytes = export_checked (s);
      bank_entry_of (s, bytes, &self);
      import_checked (s, g_bytes_get_data (bytes, NULL),
          g_bytes_get_size (bytes), TRUE, TRUE, &self);
      g_bytes_unref (bytes);
      break;
    }
  }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  Run run;
  guint8 config;
  guint model_a, channels_a, model_b, channels_b, i, max_hop = 0;

  memset (&run, 0, sizeof (run));
  fuzz_input_init (&run.in, data, size);
  config = fuzz_input_u8 (&run.in);
  model_a = (config & FUZZ_CONFIG_MODEL_1) ? 1 : 0;
  channels_a = (config & FUZZ_CONFIG_STEREO) ? 2 : 1;
  model_b = model_a;
  channels_b = channels_a;
  switch ((config >> FUZZ_CONFIG_B_SHIFT) & 3) {
    case 2:
      channels_b = 3 - channels_a;
      break;
    case 3:
      model_b = 1 - model_a;
      break;
    default:
      break;
  }
  stream_init (&run.streams[0], model_a, channels_a);
  stream_init (&run.streams[1], model_b, channels_b);
  for (i = 0; i < 2; i++)
    max_hop = MAX (max_hop, run.streams[i].hop);
  /* Room for a chunk and for a drain, of the most channels. */
  run.buffer_len = (gsize) (CHUNK_HOPS * max_hop + 2) * MAX_CHANNELS;
  run.x = g_new0 (gfloat, run.buffer_len);
  run.y = g_new0 (gfloat, run.buffer_len);
  run.y2 = g_new0 (gfloat, run.buffer_len);

  while (!fuzz_input_done (&run.in))
    run_op (&run);

  for (i = 0; i < N_BANK; i++)
    g_clear_pointer (&run.bank[i].bytes, g_bytes_unref);
  g_free (run.y2);
  g_free (run.y);
  g_free (run.x);
  stream_clear (&run.streams[1]);
  stream_clear (&run.streams[0]);
  return 0;
}
