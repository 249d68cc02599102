/* rnndenoise — fuzzing: replay corpus files through a harness without
 * libFuzzer
 * SPDX-License-Identifier: LGPL-2.1-or-later
 *
 * Usage: replay_<harness> PATH...
 *        replay_<harness> --known-bugs DIRECTORY...
 *
 * The first form calls the harness's LLVMFuzzerTestOneInput() once per
 * file. A directory stands for its files (not its subdirectories), in name
 * order, except names starting with '.', README files and crash-* files:
 * those are reproducers of known, unfixed bugs (docs/fuzzing.md), which
 * this form lists but does not run, so that the suite stays green until
 * the fix. A failed check aborts, so the exit status tells; each file is
 * named before it runs, so the last name printed is the culprit.
 *
 * The second form runs each crash-* file of the directories in a child
 * process and expects it to fail. Exit status: 0 if every reproducer still
 * fails, 1 if one passes (the bug is fixed: rename the file to regress-*
 * so that it is replayed as a regression test from then on), 77 (skipped)
 * if there is none.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/fuzz/fuzz_common.h"

#define KNOWN_BUG_PREFIX "crash-"
#define EXIT_SKIPPED 77

static gboolean
read_file (const gchar *path, gchar **contents, gsize *length)
{
  GError *error = NULL;

  if (!g_file_get_contents (path, contents, length, &error)) {
    fprintf (stderr, "replay: %s\n", error->message);
    g_error_free (error);
    return FALSE;
  }
  return TRUE;
}

static gboolean
replay_file (const gchar *path)
{
  gchar *contents = NULL;
  gsize length = 0;

  if (!read_file (path, &contents, &length))
    return FALSE;
  printf ("replay: %s (%" G_GSIZE_FORMAT " bytes)\n", path, length);
  fflush (stdout);
  LLVMFuzzerTestOneInput ((const uint8_t *) contents, length);
  g_free (contents);
  return TRUE;
}

/* Runs a known-bug reproducer in a child; TRUE if it still fails. */
static gboolean
still_fails (const gchar *path)
{
  gchar *contents = NULL;
  gsize length = 0;
  gint status = 0;
  pid_t pid;

  if (!read_file (path, &contents, &length))
    return FALSE;
  fflush (stdout);
  fflush (stderr);
  pid = fork ();
  if (pid == 0) {
    LLVMFuzzerTestOneInput ((const uint8_t *) contents, length);
    _exit (0);
  }
  g_free (contents);
  if (pid < 0 || waitpid (pid, &status, 0) != pid) {
    fprintf (stderr, "replay: cannot run %s in a child\n", path);
    return FALSE;
  }
  return !(WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

static gint
compare_names (gconstpointer a, gconstpointer b)
{
  return strcmp (*(const gchar *const *) a, *(const gchar *const *) b);
}

/* The regular files of @dir_path, in name order, without hidden and README
 * files. */
static GPtrArray *
list_dir (const gchar *dir_path)
{
  GError *error = NULL;
  GPtrArray *paths;
  const gchar *name;
  GDir *dir;

  dir = g_dir_open (dir_path, 0, &error);
  if (dir == NULL) {
    fprintf (stderr, "replay: %s\n", error->message);
    g_error_free (error);
    return NULL;
  }
  paths = g_ptr_array_new_with_free_func (g_free);
  while ((name = g_dir_read_name (dir)) != NULL) {
    gchar *path;

    if (name[0] == '.' || g_str_has_prefix (name, "README"))
      continue;
    path = g_build_filename (dir_path, name, NULL);
    if (g_file_test (path, G_FILE_TEST_IS_REGULAR))
      g_ptr_array_add (paths, path);
    else
      g_free (path);
  }
  g_dir_close (dir);
  g_ptr_array_sort (paths, compare_names);
  return paths;
}

static gboolean
is_known_bug (const gchar *path)
{
  gchar *base = g_path_get_basename (path);
  gboolean known = g_str_has_prefix (base, KNOWN_BUG_PREFIX);

  g_free (base);
  return known;
}

static gint
run_known_bugs (gint n_dirs, gchar **dirs)
{
  guint count = 0, fixed = 0, i;
  gint d;

  for (d = 0; d < n_dirs; d++) {
    GPtrArray *paths = list_dir (dirs[d]);

    if (paths == NULL)
      return 1;
    for (i = 0; i < paths->len; i++) {
      const gchar *path = paths->pdata[i];

      if (!is_known_bug (path))
        continue;
      count++;
      if (still_fails (path)) {
        printf ("known bug: %s still fails\n", path);
      } else {
        printf ("known bug: %s PASSES now: the bug is fixed; rename the file "
                "to regress-*\n",
            path);
        fixed++;
      }
    }
    g_ptr_array_unref (paths);
  }
  printf ("known bugs: %u reproducers, %u fixed\n", count, fixed);
  if (count == 0)
    return EXIT_SKIPPED;
  return fixed == 0 ? 0 : 1;
}

int
main (int argc, char **argv)
{
  gboolean ok = TRUE;
  guint count = 0, skipped = 0, i;
  gint a;

  if (argc >= 2 && strcmp (argv[1], "--known-bugs") == 0)
    return run_known_bugs (argc - 2, argv + 2);
  if (argc < 2) {
    fprintf (stderr,
        "usage: %s FILE-OR-DIRECTORY...\n"
        "       %s --known-bugs DIRECTORY...\n",
        argv[0], argv[0]);
    return 2;
  }
  for (a = 1; a < argc; a++) {
    GPtrArray *paths;

    if (!g_file_test (argv[a], G_FILE_TEST_IS_DIR)) {
      ok = replay_file (argv[a]) && ok;
      count++;
      continue;
    }
    paths = list_dir (argv[a]);
    if (paths == NULL) {
      ok = FALSE;
      continue;
    }
    for (i = 0; i < paths->len; i++) {
      const gchar *path = paths->pdata[i];

      if (is_known_bug (path)) {
        printf ("replay: %s is a known bug, not run here (see "
                "--known-bugs)\n",
            path);
        skipped++;
        continue;
      }
      ok = replay_file (path) && ok;
      count++;
    }
    g_ptr_array_unref (paths);
  }
  printf ("replay: %u inputs, %s; %u known-bug reproducers not run\n", count,
      ok ? "all passed" : "FAILED", skipped);
  if (count == 0) {
    fprintf (stderr, "replay: no input found\n");
    return 1;
  }
  return ok ? 0 : 1;
}
