-- tests/db/schema_v1.sql: the version-1 schema of attnbench's database,
-- migration 0 -> 1 as first released (db/schema.c at commit cfec819,
-- 2026-11-21), extracted by compiling that file and printing
-- ab_schema_migration(0). Kept here, not read from db/schema.c, so the
-- migration test still opens a true version-1 database if that migration
-- were ever edited.
CREATE TABLE environments (
  id          INTEGER PRIMARY KEY,
  hash        TEXT NOT NULL UNIQUE,      -- FNV-1a 64 of the canonical fingerprint JSON
  fingerprint TEXT NOT NULL              -- JSON object (attnbench env)
);
CREATE TABLE experiments (
  id         INTEGER PRIMARY KEY,
  name       TEXT NOT NULL,
  path       TEXT NOT NULL,              -- as given to attnbench run
  definition TEXT NOT NULL,              -- the experiment file's text
  hash       TEXT NOT NULL UNIQUE        -- FNV-1a 64 of the text
);
CREATE TABLE runs (
  id             INTEGER PRIMARY KEY,
  uuid           TEXT NOT NULL UNIQUE,   -- identity across export/import
  experiment_id  INTEGER NOT NULL REFERENCES experiments(id),
  environment_id INTEGER NOT NULL REFERENCES environments(id),
  started_at     TEXT NOT NULL,          -- UTC, ISO 8601
  finished_at    TEXT,
  status         TEXT NOT NULL CHECK (status IN ('running','complete','failed','interrupted')),
  command        TEXT NOT NULL,          -- reproduces the run
  timing_mode    TEXT NOT NULL
);
CREATE TABLE measurements (
  id            INTEGER PRIMARY KEY,
  run_id        INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  variant       TEXT NOT NULL,
  backend       TEXT NOT NULL,
  B INTEGER NOT NULL, H INTEGER NOT NULL, S INTEGER NOT NULL, D INTEGER NOT NULL,
  causal        INTEGER NOT NULL,
  dtype         TEXT NOT NULL,
  warmup        INTEGER NOT NULL,
  timing_mode   TEXT NOT NULL,
  graph_k       INTEGER NOT NULL DEFAULT 1,
  status        TEXT NOT NULL CHECK (status IN ('ok','failed','error')),
  message       TEXT,
  checked       INTEGER NOT NULL DEFAULT 0,
  max_abs_err   REAL, mean_abs_err REAL, rel_l2_err REAL, tolerance REAL,
  nonfinite     INTEGER, rows_checked INTEGER,
  flops         REAL NOT NULL,           -- per forward pass
  bytes         REAL NOT NULL,           -- Q, K, V read + O written once
  peak_bytes    REAL,
  stop_reason   TEXT,
  external      INTEGER NOT NULL DEFAULT 0,
  adapter_env   TEXT,
  stderr_text   TEXT,
  UNIQUE (run_id, variant, B, H, S, D, causal, dtype)
);
CREATE TABLE samples (
  measurement_id INTEGER NOT NULL REFERENCES measurements(id) ON DELETE CASCADE,
  idx            INTEGER NOT NULL,       -- order taken, from 0
  ms             REAL NOT NULL,          -- latency, milliseconds
  round          INTEGER NOT NULL DEFAULT 0,
  t_s            REAL,                   -- seconds since the run started
  throttled      INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY (measurement_id, idx)
) WITHOUT ROWID;
CREATE INDEX measurements_by_config ON measurements(variant, B, H, S, D, causal, dtype);
