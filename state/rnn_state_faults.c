/* rnndenoise — state library: debug fault injection
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rnn_state_error.h"
#include "rnn_state_faults.h"

/* Written once by the first rnn_state_faults_get () (under pthread_once,
 * which race detectors understand; see rnn_state_lock.h), or by
 * rnn_state_faults_override () in tests before any slot is used. */
static RnnStateFaults active_faults;
static pthread_once_t faults_once = PTHREAD_ONCE_INIT;

static gboolean
parse_one (const gchar *item, RnnStateFaults *faults, GError **error)
{
  const gchar *eq = strchr (item, '=');
  guint64 value;
  gchar *end = NULL;

  if (eq == NULL) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "fault \"%s\" has no value (expected key=value)", item);
    return FALSE;
  }
  value = g_ascii_strtoull (eq + 1, &end, 10);
  if (end == eq + 1 || *end != '\0' || value > 10 * G_USEC_PER_SEC) {
    g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
        "fault \"%s\": value must be an integer in 0..%d", item,
        10 * G_USEC_PER_SEC);
    return FALSE;
  }
  if (strncmp (item, "writeback-delay-us", eq - item) == 0
      && (gsize) (eq - item) == strlen ("writeback-delay-us")) {
    faults->writeback_delay_us = (guint) value;
    return TRUE;
  }
  g_set_error (error, RNN_STATE_ERROR, RNN_STATE_ERROR_INVALID,
      "unknown fault \"%.*s\" (known: writeback-delay-us)", (gint) (eq - item),
      item);
  return FALSE;
}

/**
 * rnn_state_faults_parse:
 * @spec: (nullable): a comma-separated list of key=value pairs
 * @faults: filled with the parsed faults (zeroed first)
 * @error: return location for a #RNN_STATE_ERROR_INVALID error
 *
 * Known keys: writeback-delay-us (0..10000000).
 *
 * Returns: TRUE if every item parsed.
 */
gboolean
rnn_state_faults_parse (const gchar *spec, RnnStateFaults *faults,
    GError **error)
{
  gchar **items;
  gboolean ok = TRUE;
  guint i;

  g_return_val_if_fail (faults != NULL, FALSE);

  memset (faults, 0, sizeof (*faults));
  if (spec == NULL || *spec == '\0')
    return TRUE;

  items = g_strsplit (spec, ",", -1);
  for (i = 0; ok && items[i] != NULL; i++) {
    g_strstrip (items[i]);
    if (*items[i] != '\0')
      ok = parse_one (items[i], faults, error);
  }
  g_strfreev (items);
  if (!ok)
    memset (faults, 0, sizeof (*faults));
  return ok;
}

/**
 * rnn_state_faults_get:
 *
 * Parses RNNDENOISE_FAULTS the first time it is called; an invalid value is
 * reported once with g_warning () and ignored.
 *
 * Returns: (transfer none): the process-wide faults; never NULL.
 */
static void
load_faults (void)
{
  GError *error = NULL;

  if (!rnn_state_faults_parse (g_getenv ("RNNDENOISE_FAULTS"), &active_faults,
          &error)) {
    g_warning ("RNNDENOISE_FAULTS ignored: %s", error->message);
    g_clear_error (&error);
  }
}

const RnnStateFaults *
rnn_state_faults_get (void)
{
  pthread_once (&faults_once, load_faults);
  return &active_faults;
}

/**
 * rnn_state_faults_override:
 * @faults: the faults to use from now on
 *
 * For tests: replaces the faults of the process. Call it only while no slot
 * is in use by another thread.
 */
void
rnn_state_faults_override (const RnnStateFaults *faults)
{
  g_return_if_fail (faults != NULL);

  (void) rnn_state_faults_get ();
  active_faults = *faults;
}
