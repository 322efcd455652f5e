/*
 * provenance.h: what produced each variant's numbers in a run, for `show`
 * and the reports: a built-in variant (the build's commit is the run's
 * fingerprint), a plugin (the library's real path, size and SHA-256 stored
 * with its measurements, src/run/plugin.c) or an adapter (the command of
 * its experiment entry, its protocol, and the version line it printed:
 * the `env` JSON of adapters/PROTOCOL.md, stored with its measurements).
 */
#ifndef ATTNBENCH_PROVENANCE_H
#define ATTNBENCH_PROVENANCE_H

#include "experiment.h"
#include "run_record.h"

#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>

/* The provenance of every variant of experiment e in run run_id: a new
 * JSON object keyed by variant name, in the experiment's order, each
 * {"route": "built-in", "variant": NAME} or
 * {"route": "plugin", "library": FIELD, "path": REAL PATH, "size": BYTES,
 *  "sha256": HEX or null} or
 * {"route": "adapter", "command": COMMAND, "protocol": 1|2,
 *  "version": {env JSON} or null, "versions": N distinct env lines}.
 * Fields the database lacks (a variant never measured, a plugin that did
 * not load) are null. NULL with err (AB_ERR bytes) on a database error. */
json_t *ab_provenance_load(sqlite3 *db, long long run_id, const ab_experiment *e, char *err);

/* The same from a loaded run record (db/run_record.h: each variant's
 * first adapter env and their count): NULL when the record could not read
 * them, or out of memory. */
json_t *ab_provenance_of_record(const ab_run_record *rec, const ab_experiment *e);

/* Prints prov (from ab_provenance_load) as a markdown table, one row per
 * variant: | `variant` | route | what ran |. Nothing when prov is empty. */
void ab_provenance_markdown(FILE *out, const json_t *prov);

/* Prints prov as plain text lines for `attnbench show`:
 * "  NAME  plugin  PATH  sha256 HEX  (N bytes)". */
void ab_provenance_text(FILE *out, const json_t *prov);

#endif
