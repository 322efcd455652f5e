/*
 * schema.c: the SQLite schema of attnbench as an ordered list of migrations.
 * Migration i takes a database from user_version i to i+1; ab_db_open applies
 * the missing ones in one transaction each. Never edit a released migration:
 * append a new one.
 */
#include "schema.h"

#include <stddef.h>

static const char *const migrations[] = {
    /* 0 -> 1: the core tables */
    "CREATE TABLE environments (\n"
    "  id          INTEGER PRIMARY KEY,\n"
    "  hash        TEXT NOT NULL UNIQUE,      -- FNV-1a 64 of the canonical fingerprint JSON\n"
    "  fingerprint TEXT NOT NULL              -- JSON object (attnbench env)\n"
    ");\n"
    "CREATE TABLE experiments (\n"
    "  id         INTEGER PRIMARY KEY,\n"
    "  name       TEXT NOT NULL,\n"
    "  path       TEXT NOT NULL,              -- as given to attnbench run\n"
    "  definition TEXT NOT NULL,              -- the experiment file's text\n"
    "  hash       TEXT NOT NULL UNIQUE        -- FNV-1a 64 of the text\n"
    ");\n"
    "CREATE TABLE runs (\n"
    "  id             INTEGER PRIMARY KEY,\n"
    "  uuid           TEXT NOT NULL UNIQUE,   -- identity across export/import\n"
    "  experiment_id  INTEGER NOT NULL REFERENCES experiments(id),\n"
    "  environment_id INTEGER NOT NULL REFERENCES environments(id),\n"
    "  started_at     TEXT NOT NULL,          -- UTC, ISO 8601\n"
    "  finished_at    TEXT,\n"
    "  status         TEXT NOT NULL CHECK (status IN ('running','complete','failed','interrupted')),\n"
    "  command        TEXT NOT NULL,          -- reproduces the run\n"
    "  timing_mode    TEXT NOT NULL\n"
    ");\n"
    "CREATE TABLE measurements (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  variant       TEXT NOT NULL,\n"
    "  backend       TEXT NOT NULL,\n"
    "  B INTEGER NOT NULL, H INTEGER NOT NULL, S INTEGER NOT NULL, D INTEGER NOT NULL,\n"
    "  causal        INTEGER NOT NULL,\n"
    "  dtype         TEXT NOT NULL,\n"
    "  warmup        INTEGER NOT NULL,\n"
    "  timing_mode   TEXT NOT NULL,\n"
    "  graph_k       INTEGER NOT NULL DEFAULT 1,\n"
    "  status        TEXT NOT NULL CHECK (status IN ('ok','failed','error')),\n"
    "  message       TEXT,\n"
    "  checked       INTEGER NOT NULL DEFAULT 0,\n"
    "  max_abs_err   REAL, mean_abs_err REAL, rel_l2_err REAL, tolerance REAL,\n"
    "  nonfinite     INTEGER, rows_checked INTEGER,\n"
    "  flops         REAL NOT NULL,           -- per forward pass\n"
    "  bytes         REAL NOT NULL,           -- Q, K, V read + O written once\n"
    "  peak_bytes    REAL,\n"
    "  stop_reason   TEXT,\n"
    "  external      INTEGER NOT NULL DEFAULT 0,\n"
    "  adapter_env   TEXT,\n"
    "  stderr_text   TEXT,\n"
    "  UNIQUE (run_id, variant, B, H, S, D, causal, dtype)\n"
    ");\n"
    "CREATE TABLE samples (\n"
    "  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,\n"
    "  idx            INTEGER NOT NULL,       -- order taken, from 0\n"
    "  ms             REAL NOT NULL,          -- latency, milliseconds\n"
    "  round          INTEGER NOT NULL DEFAULT 0,\n"
    "  t_s            REAL,                   -- seconds since the run started\n"
    "  throttled      INTEGER NOT NULL DEFAULT 0,\n"
    "  PRIMARY KEY (measurement_id, idx)\n"
    ") WITHOUT ROWID;\n"
    "CREATE INDEX measurements_by_config ON measurements(variant, B, H, S, D, causal, dtype);\n",

    /* 1 -> 2: what the GPU was doing while it was measured */
    "CREATE TABLE clock_blocks (\n"
    "  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,\n"
    "  round          INTEGER NOT NULL,\n"
    "  first_idx      INTEGER NOT NULL,       -- samples first_idx .. first_idx+n-1\n"
    "  n              INTEGER NOT NULL,\n"
    "  sm_mhz_before  INTEGER, sm_mhz_after INTEGER, mem_mhz INTEGER,\n"
    "  temp_c         INTEGER, power_w REAL,\n"
    "  reasons        INTEGER,                -- NVML clocks-event reasons, OR of both readings\n"
    "  throttled      INTEGER NOT NULL,       -- thermal or hardware slowdown\n"
    "  power_capped   INTEGER NOT NULL\n"
    ");\n"
    "CREATE TABLE timer_floor (\n"
    "  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  timing_mode TEXT NOT NULL,\n"
    "  n           INTEGER NOT NULL,\n"
    "  median_ms   REAL NOT NULL,             -- an empty kernel, timed like a variant\n"
    "  PRIMARY KEY (run_id, timing_mode)\n"
    ");\n"
    "ALTER TABLE runs ADD COLUMN clocks_monitored INTEGER NOT NULL DEFAULT 0;\n",

    /* 2 -> 3: views for plain SQL (sqlite3 shell, attnbench query). Medians
     * over the unthrottled samples, as reports compute them: the middle row,
     * or the mean of the two middle rows, by ROW_NUMBER over the count. */
    "CREATE VIEW measurement_summary AS\n"
    "WITH ranked AS (\n"
    "  SELECT measurement_id, ms,\n"
    "         ROW_NUMBER() OVER (PARTITION BY measurement_id ORDER BY ms) AS rn,\n"
    "         COUNT(*) OVER (PARTITION BY measurement_id) AS cnt\n"
    "  FROM samples WHERE throttled = 0\n"
    "), med AS (\n"
    "  SELECT measurement_id, AVG(ms) AS median_ms FROM ranked\n"
    "  WHERE rn IN ((cnt + 1) / 2, (cnt + 2) / 2) GROUP BY measurement_id\n"
    "), agg AS (\n"
    "  SELECT measurement_id, count(*) AS n, min(ms) AS min_ms, max(ms) AS max_ms\n"
    "  FROM samples WHERE throttled = 0 GROUP BY measurement_id\n"
    ")\n"
    "SELECT m.id AS measurement_id, m.run_id, r.uuid AS run_uuid, m.variant, m.B, m.H, m.S,\n"
    "       m.D, m.causal, m.dtype, m.status, m.stop_reason, coalesce(agg.n, 0) AS n,\n"
    "       med.median_ms, agg.min_ms, agg.max_ms,\n"
    "       m.flops / (med.median_ms * 1e9) AS tflops  -- TFLOP/s at the median\n"
    "FROM measurements m JOIN runs r ON r.id = m.run_id\n"
    "LEFT JOIN agg ON agg.measurement_id = m.id LEFT JOIN med ON med.measurement_id = m.id;\n"
    "CREATE VIEW latest_runs AS\n"
    "SELECT x.name AS experiment, r.id AS run_id, r.uuid, r.started_at, r.finished_at,\n"
    "       r.status, coalesce(json_extract(v.fingerprint, '$.gpu.name'), 'CPU only') AS gpu,\n"
    "       json_extract(v.fingerprint, '$.build.commit') AS commit_id, v.hash AS env_hash\n"
    "FROM runs r JOIN experiments x ON x.id = r.experiment_id\n"
    "JOIN environments v ON v.id = r.environment_id\n"
    "WHERE r.id = (SELECT r2.id FROM runs r2 JOIN experiments x2 ON x2.id = r2.experiment_id\n"
    "              WHERE x2.name = x.name ORDER BY r2.started_at DESC, r2.id DESC LIMIT 1);\n",

    /* 3 -> 4: L2 rotation and the machine's measured ceilings */
    "ALTER TABLE measurements ADD COLUMN input_sets INTEGER NOT NULL DEFAULT 1; -- copies of Q, K, V, O rotated in hot/graph mode\n"
    "ALTER TABLE runs ADD COLUMN peak_gemm_tflops REAL;  -- cuBLAS bf16 GEMM 8192^3, measured at the run's start\n"
    "ALTER TABLE runs ADD COLUMN peak_copy_gbs REAL;     -- device-to-device copy, bytes read + written\n",

    /* liveness: who runs a 'running' run, so that one whose
     * process is gone shows as abandoned and can be resumed (db/liveness.h) */
    "ALTER TABLE runs ADD COLUMN host TEXT;        -- gethostname of the process running it\n"
    "ALTER TABLE runs ADD COLUMN pid INTEGER;      -- its process id\n"
    "ALTER TABLE runs ADD COLUMN proc_start TEXT;  -- its start time, /proc/PID/stat field 22\n"
    "ALTER TABLE runs ADD COLUMN boot_id TEXT;     -- /proc/sys/kernel/random/boot_id\n",
    /* i16: the run's settings and conditions, apart from the machine's
     * fingerprint (whose hash `attnbench env` and every run on the machine
     * share): timing mode, CPU threads, affinity, load average (JSON) */
    "ALTER TABLE runs ADD COLUMN run_settings TEXT;  -- JSON (src/runenv.h); NULL for older runs\n",

    /* check coverage: the correctness check's row sample */
    "ALTER TABLE measurements ADD COLUMN check_seed INTEGER; -- seed of the checked-row sample; NULL: every row\n"
    "ALTER TABLE measurements ADD COLUMN rows_total INTEGER; -- B*H*S: the rows a check could compare\n",

    /* where each run's wall time went (src/walltime.h), seconds */
    "CREATE TABLE IF NOT EXISTS run_walltime (\n"
    "  run_id     INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  total_s    REAL NOT NULL,              -- the run, start to end\n"
    "  timed_s    REAL NOT NULL,              -- sum of the samples themselves\n"
    "  sampling_s REAL NOT NULL,              -- wall time of the sampling calls\n"
    "  warmup_s   REAL NOT NULL,\n"
    "  check_s    REAL NOT NULL,              -- correctness checks\n"
    "  setup_s    REAL NOT NULL,              -- variant setup and teardown\n"
    "  inputs_s   REAL NOT NULL,              -- input generation and upload\n"
    "  ceilings_s REAL NOT NULL,              -- timer floor and ceilings\n"
    "  adapter_s  REAL NOT NULL,              -- external adapters minus their samples\n"
    "  store_s    REAL NOT NULL               -- database writes\n"
    ");\n",

    /* a run that measured one part of an experiment split into
     * shard_n parts (--shard K/N, a Slurm array task, --devices); NULL for a
     * run of the whole experiment (src/shard.h) */
    "ALTER TABLE runs ADD COLUMN shard_k INTEGER;   -- part K (1-based) of shard_n\n"
    "ALTER TABLE runs ADD COLUMN shard_n INTEGER;   -- parts the experiment was split into\n"
    "ALTER TABLE runs ADD COLUMN shard_hash TEXT;   -- experiments.hash of the experiment split\n"
    "ALTER TABLE runs ADD COLUMN worker TEXT;       -- --devices worker: 'cuda:1', 'cuda:0 (shared, testing)', 'cpu'\n",

    /* K/V heads H_kv and key/value length S_kv per measurement
     * (older rows: H_kv = H, S_kv = S). They join the configuration's
     * identity, so the UNIQUE constraint changes and the table is rebuilt
     * (SQLite's "making other kinds of table schema changes" procedure:
     * new table, copy, drop, rename; db/store.c runs migrations with
     * foreign keys off, so dropping the old table cascades nothing; the
     * view that reads it is dropped first and created again after). */
    "DROP VIEW IF EXISTS measurement_summary;\n"
    "CREATE TABLE measurements_new (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  variant       TEXT NOT NULL,\n"
    "  backend       TEXT NOT NULL,\n"
    "  B INTEGER NOT NULL, H INTEGER NOT NULL, S INTEGER NOT NULL, D INTEGER NOT NULL,\n"
    "  causal        INTEGER NOT NULL,\n"
    "  dtype         TEXT NOT NULL,\n"
    "  warmup        INTEGER NOT NULL,\n"
    "  timing_mode   TEXT NOT NULL,\n"
    "  graph_k       INTEGER NOT NULL DEFAULT 1,\n"
    "  status        TEXT NOT NULL CHECK (status IN ('ok','failed','error')),\n"
    "  message       TEXT,\n"
    "  checked       INTEGER NOT NULL DEFAULT 0,\n"
    "  max_abs_err   REAL, mean_abs_err REAL, rel_l2_err REAL, tolerance REAL,\n"
    "  nonfinite     INTEGER, rows_checked INTEGER,\n"
    "  flops         REAL NOT NULL,           -- per forward pass\n"
    "  bytes         REAL NOT NULL,           -- Q, O once; K, V once per K/V head\n"
    "  peak_bytes    REAL,\n"
    "  stop_reason   TEXT,\n"
    "  external      INTEGER NOT NULL DEFAULT 0,\n"
    "  adapter_env   TEXT,\n"
    "  stderr_text   TEXT,\n"
    "  input_sets    INTEGER NOT NULL DEFAULT 1,\n"
    "  check_seed    INTEGER,\n"
    "  rows_total    INTEGER,\n"
    "  H_kv          INTEGER NOT NULL,        -- K/V heads (H for multi-head attention)\n"
    "  S_kv          INTEGER NOT NULL,        -- key/value length (S unless decode/chunked prefill)\n"
    "  UNIQUE (run_id, variant, B, H, S, D, causal, dtype, H_kv, S_kv)\n"
    ");\n"
    "INSERT INTO measurements_new SELECT id, run_id, variant, backend, B, H, S, D, causal, dtype,\n"
    "  warmup, timing_mode, graph_k, status, message, checked, max_abs_err, mean_abs_err,\n"
    "  rel_l2_err, tolerance, nonfinite, rows_checked, flops, bytes, peak_bytes, stop_reason,\n"
    "  external, adapter_env, stderr_text, input_sets, check_seed, rows_total, H, S\n"
    "  FROM measurements;\n"
    "DROP TABLE measurements;\n"
    "ALTER TABLE measurements_new RENAME TO measurements;\n"
    "CREATE INDEX measurements_by_config ON measurements(variant, B, H, S, D, causal, dtype);\n"
    "CREATE VIEW measurement_summary AS\n"
    "WITH ranked AS (\n"
    "  SELECT measurement_id, ms,\n"
    "         ROW_NUMBER() OVER (PARTITION BY measurement_id ORDER BY ms) AS rn,\n"
    "         COUNT(*) OVER (PARTITION BY measurement_id) AS cnt\n"
    "  FROM samples WHERE throttled = 0\n"
    "), med AS (\n"
    "  SELECT measurement_id, AVG(ms) AS median_ms FROM ranked\n"
    "  WHERE rn IN ((cnt + 1) / 2, (cnt + 2) / 2) GROUP BY measurement_id\n"
    "), agg AS (\n"
    "  SELECT measurement_id, count(*) AS n, min(ms) AS min_ms, max(ms) AS max_ms\n"
    "  FROM samples WHERE throttled = 0 GROUP BY measurement_id\n"
    ")\n"
    "SELECT m.id AS measurement_id, m.run_id, r.uuid AS run_uuid, m.variant, m.B, m.H, m.S,\n"
    "       m.D, m.causal, m.dtype, m.status, m.stop_reason, coalesce(agg.n, 0) AS n,\n"
    "       med.median_ms, agg.min_ms, agg.max_ms,\n"
    "       m.flops / (med.median_ms * 1e9) AS tflops,  -- TFLOP/s at the median\n"
    "       m.H_kv, m.S_kv,\n"
    "       m.bytes / (med.median_ms * 1e6) AS gbs      -- GB/s at the median\n"
    "FROM measurements m JOIN runs r ON r.id = m.run_id\n"
    "LEFT JOIN agg ON agg.measurement_id = m.id LEFT JOIN med ON med.measurement_id = m.id;\n",

    /* the pass a measurement timed ('fwd', 'bwd' or 'fwd+bwd';
     * older rows 'fwd'), part of the configuration's identity (the table is
     * rebuilt as in the H_kv/S_kv migration), and the correctness of each
     * gradient of a checked backward pass, one row per gradient. */
    "DROP VIEW IF EXISTS measurement_summary;\n"
    "CREATE TABLE measurements_new (\n"
    "  id            INTEGER PRIMARY KEY,\n"
    "  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,\n"
    "  variant       TEXT NOT NULL,\n"
    "  backend       TEXT NOT NULL,\n"
    "  B INTEGER NOT NULL, H INTEGER NOT NULL, S INTEGER NOT NULL, D INTEGER NOT NULL,\n"
    "  causal        INTEGER NOT NULL,\n"
    "  dtype         TEXT NOT NULL,\n"
    "  warmup        INTEGER NOT NULL,\n"
    "  timing_mode   TEXT NOT NULL,\n"
    "  graph_k       INTEGER NOT NULL DEFAULT 1,\n"
    "  status        TEXT NOT NULL CHECK (status IN ('ok','failed','error')),\n"
    "  message       TEXT,\n"
    "  checked       INTEGER NOT NULL DEFAULT 0,\n"
    "  max_abs_err   REAL, mean_abs_err REAL, rel_l2_err REAL, tolerance REAL,\n"
    "  nonfinite     INTEGER, rows_checked INTEGER,\n"
    "  flops         REAL NOT NULL,           -- per timed pass (backward: 2.5 forwards)\n"
    "  bytes         REAL NOT NULL,           -- ideal traffic of the timed pass\n"
    "  peak_bytes    REAL,\n"
    "  stop_reason   TEXT,\n"
    "  external      INTEGER NOT NULL DEFAULT 0,\n"
    "  adapter_env   TEXT,\n"
    "  stderr_text   TEXT,\n"
    "  input_sets    INTEGER NOT NULL DEFAULT 1,\n"
    "  check_seed    INTEGER,\n"
    "  rows_total    INTEGER,\n"
    "  H_kv          INTEGER NOT NULL,        -- K/V heads (H for multi-head attention)\n"
    "  S_kv          INTEGER NOT NULL,        -- key/value length (S unless decode/chunked prefill)\n"
    "  pass          TEXT NOT NULL DEFAULT 'fwd' CHECK (pass IN ('fwd','bwd','fwd+bwd')),\n"
    "  UNIQUE (run_id, variant, B, H, S, D, causal, dtype, H_kv, S_kv, pass)\n"
    ");\n"
    "INSERT INTO measurements_new SELECT id, run_id, variant, backend, B, H, S, D, causal, dtype,\n"
    "  warmup, timing_mode, graph_k, status, message, checked, max_abs_err, mean_abs_err,\n"
    "  rel_l2_err, tolerance, nonfinite, rows_checked, flops, bytes, peak_bytes, stop_reason,\n"
    "  external, adapter_env, stderr_text, input_sets, check_seed, rows_total, H_kv, S_kv, 'fwd'\n"
    "  FROM measurements;\n"
    "DROP TABLE measurements;\n"
    "ALTER TABLE measurements_new RENAME TO measurements;\n"
    "CREATE INDEX measurements_by_config ON measurements(variant, B, H, S, D, causal, dtype);\n"
    "CREATE TABLE grad_checks (\n"
    "  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,\n"
    "  grad          TEXT NOT NULL CHECK (grad IN ('dQ','dK','dV')),\n"
    "  max_abs_err   REAL NOT NULL,           -- max |g - g_ref| (float64 reference)\n"
    "  rel_l2_err    REAL NOT NULL,           -- ||g - g_ref||_2 / ||g_ref||_2\n"
    "  plain_max_abs_err REAL NOT NULL,       -- max |g_plain - g_ref|, same-precision plain backward\n"
    "  atol          REAL NOT NULL,\n"
    "  tolerance     REAL NOT NULL,           -- 2 plain_max_abs_err + atol\n"
    "  ref_absmax    REAL NOT NULL,\n"
    "  nonfinite     INTEGER NOT NULL,        -- NaN/Inf elements in all of g\n"
    "  elems         INTEGER NOT NULL,        -- elements compared\n"
    "  pass          INTEGER NOT NULL,        -- 1: within tolerance and finite\n"
    "  PRIMARY KEY (measurement_id, grad)\n"
    ");\n"
    "CREATE VIEW measurement_summary AS\n"
    "WITH ranked AS (\n"
    "  SELECT measurement_id, ms,\n"
    "         ROW_NUMBER() OVER (PARTITION BY measurement_id ORDER BY ms) AS rn,\n"
    "         COUNT(*) OVER (PARTITION BY measurement_id) AS cnt\n"
    "  FROM samples WHERE throttled = 0\n"
    "), med AS (\n"
    "  SELECT measurement_id, AVG(ms) AS median_ms FROM ranked\n"
    "  WHERE rn IN ((cnt + 1) / 2, (cnt + 2) / 2) GROUP BY measurement_id\n"
    "), agg AS (\n"
    "  SELECT measurement_id, count(*) AS n, min(ms) AS min_ms, max(ms) AS max_ms\n"
    "  FROM samples WHERE throttled = 0 GROUP BY measurement_id\n"
    ")\n"
    "SELECT m.id AS measurement_id, m.run_id, r.uuid AS run_uuid, m.variant, m.B, m.H, m.S,\n"
    "       m.D, m.causal, m.dtype, m.status, m.stop_reason, coalesce(agg.n, 0) AS n,\n"
    "       med.median_ms, agg.min_ms, agg.max_ms,\n"
    "       m.flops / (med.median_ms * 1e9) AS tflops,  -- TFLOP/s at the median\n"
    "       m.H_kv, m.S_kv,\n"
    "       m.bytes / (med.median_ms * 1e6) AS gbs,     -- GB/s at the median\n"
    "       m.pass\n"
    "FROM measurements m JOIN runs r ON r.id = m.run_id\n"
    "LEFT JOIN agg ON agg.measurement_id = m.id LEFT JOIN med ON med.measurement_id = m.id;\n",
};

int ab_schema_count(void) { return (int)(sizeof migrations / sizeof migrations[0]); }

const char *ab_schema_migration(int from_version)
{
    return from_version >= 0 && from_version < ab_schema_count() ? migrations[from_version]
                                                                 : NULL;
}
