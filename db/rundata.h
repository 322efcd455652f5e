/*
 * rundata.h: a run's measurements and samples as the analysis commands
 * (show, compare, export, plots) read them, and the small parsers they share
 * (a run given by id or uuid prefix, a configuration given as B,H,S,D...).
 */
#ifndef ATTNBENCH_RUNDATA_H
#define ATTNBENCH_RUNDATA_H

#include <jansson.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ab_rmeas {
    long long id;
    char variant[64], dtype[8], status[16], stop[16];
    int B, H, S, D, causal;
    double flops;
    double *ms;       /* unthrottled samples (ms) in the order taken; malloc'd */
    int *round;       /* round[i]: the interleaving round of ms[i]; malloc'd */
    size_t n;
    int rounds;       /* distinct rounds among them */
    long throttled;   /* samples left out as throttled */
    int config;       /* configuration index, in order of first appearance */
    int H_kv, S_kv;   /* K/V heads and length (= H, S for multi-head, S_kv = S) */
    double bytes;     /* ideal traffic of one pass (measurements.bytes) */
    char pass[8];     /* "fwd", "bwd", "fwd+bwd" */
} ab_rmeas;

/* Resolves RUN, a run id or a prefix (>= 4 characters) of a run uuid, to an
 * id. Returns 0, or -1 after printing an error (unknown, ambiguous). */
int ab_run_resolve(sqlite3 *db, const char *arg, long long *id);

/* Loads every measurement of run_id (ordered by measurement id) with its
 * unthrottled samples, their rounds and configuration index. Returns 0 or -1 after
 * printing an error. Free with ab_run_free. */
int ab_run_load(sqlite3 *db, long long run_id, ab_rmeas **m, size_t *n);
void ab_run_free(ab_rmeas *m, size_t n);

/* Same shape (H_kv, S_kv and pass included) and dtype. */
int ab_rmeas_same_config(const ab_rmeas *a, const ab_rmeas *b);

/* "B=1 H=8 S=512 D=128 causal fp16", as reports title configurations
 * ("B=1 H=32 H_kv=8 S=1 S_kv=4096 D=128 causal bf16" when they differ;
 * " bwd" or " fwd+bwd" appended for a backward pass). */
void ab_rmeas_title(const ab_rmeas *m, char *buf, size_t n);

/* A configuration pattern B,H,S,D[,causal|noncausal][,dtype][,H_kv=N][,S_kv=N][,pass]:
 * the four integers are required; causal and dtype, when left out, match
 * anything (causal = -1, dtype = ""); H_kv and S_kv, when left out, are H
 * and S (0 here); pass (fwd, bwd, fwd+bwd), when left out, is fwd.
 * Returns 0, or -1 with a message printed. */
typedef struct ab_config_pat {
    int B, H, S, D, causal;
    char dtype[8];
    int H_kv, S_kv; /* 0: equal to H resp. S */
    char pass[8];   /* "fwd" unless given */
} ab_config_pat;
int ab_config_parse(const char *text, ab_config_pat *p);

#endif
