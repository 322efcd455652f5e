#!/bin/sh
# output_test.sh AB OUT_WRITER SRC: attnbench's own check of an external
# variant's output (src/run/ext_output.h, `check output=PATH` in
# adapters/PROTOCOL.md), CPU only, with the plain-sh fake adapters. The
# output files come from out_writer (the float64 reference on the
# experiment's inputs, then damaged on purpose); the adapters' own figures
# always claim zero error, so every failure below is attnbench's check:
#  1. the correct output passes, every row checked (B*H*S rows);
#  2. every element 1% too large fails (protocol 1);
#  3. one wrong row (row 5 of slice 0 set to 0.5) fails;
#  4. a file of the wrong size is an error naming the sizes;
#  5. an output at a path other than the offered one is an error, and
#     that file is left alone;
#  6. protocol 2: a correct output passes and a 1%-scaled one fails, in the
#     same adapter process;
#  7. nothing is left in the offered folder ($TMPDIR) after the runs.
set -u
AB=$1 OW=$2 SRC=$3
fake="$SRC/tests/external/fake_adapter.sh"
fake2="$SRC/tests/external/fake_adapter2.sh"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
mkdir offered
export TMPDIR="$tmp/offered"
fail() { echo "FAIL: $*"; exit 1; }
q() { "$AB" query "$2" --db "$1" | sed '1,2d;$d' | sed 's/ *$//; s/   */|/g'; }
"$OW" 1 2 24 16 1 fp16 7 1.0 -1 good.f32 || fail "out_writer"
"$OW" 1 2 24 16 1 fp16 7 1.01 -1 scaled.f32 || fail "out_writer"
"$OW" 1 2 24 16 1 fp16 7 1.0 5 row.f32 || fail "out_writer"
"$OW" 1 2 23 16 1 fp16 7 1.0 -1 short.f32 || fail "out_writer"
echo keep >elsewhere.f32
cat >o.cfg <<CFG
name = "out";
variants = ( "cpu_reference",
  { name = "ext_good"; command = "FAKE_O=$tmp/good.f32 sh $fake output"; },
  { name = "ext_scaled"; command = "FAKE_O=$tmp/scaled.f32 sh $fake output"; },
  { name = "ext_row"; command = "FAKE_O=$tmp/row.f32 sh $fake output"; },
  { name = "ext_short"; command = "FAKE_O=$tmp/short.f32 sh $fake output"; },
  { name = "ext_elsewhere"; command = "FAKE_O=$tmp/good.f32 FAKE_O_PATH=$tmp/elsewhere.f32 sh $fake output"; } );
baseline = "cpu_reference";
sweep = { B = 1; H = 2; S = 24; D = 16; causal = true; dtype = "fp16"; };
warmup = 1; samples = 6; round_size = 2; seed = 7;
CFG
"$AB" run o.cfg --db o.db >/dev/null 2>log.txt; rc=$?
[ $rc = 3 ] || { cat log.txt; fail "run: exit $rc, want 3 (wrong outputs stored as failed)"; }
st() { q o.db "SELECT status || '|' || coalesce(rows_checked, -1) FROM measurements WHERE variant = '$1'"; }
msg() { q o.db "SELECT message FROM measurements WHERE variant = '$1'"; }
[ "$(st ext_good)" = "ok|48" ] || fail "1. correct output: $(st ext_good) $(msg ext_good), expected ok, 48 rows"
[ "$(st ext_scaled | cut -d'|' -f1)" = failed ] || fail "2. 1% scaled output: $(st ext_scaled) $(msg ext_scaled)"
[ "$(st ext_row | cut -d'|' -f1)" = failed ] || fail "3. one wrong row: $(st ext_row) $(msg ext_row)"
[ "$(st ext_short | cut -d'|' -f1)" = error ] || fail "4. wrong size: $(st ext_short)"
msg ext_short | grep -q "expected 3072" || fail "4. wrong size message: $(msg ext_short)"
[ "$(st ext_elsewhere | cut -d'|' -f1)" = error ] || fail "5. path not offered: $(st ext_elsewhere)"
msg ext_elsewhere | grep -q "not the path offered" || fail "5. message: $(msg ext_elsewhere)"
[ -f elsewhere.f32 ] || fail "5. the file at the other path was removed"
mkdir p2
"$OW" 1 2 24 16 1 fp16 7 1.0 -1 p2/S24.f32 && "$OW" 1 2 25 16 1 fp16 7 1.01 -1 p2/S25.f32 || fail "out_writer"
cat >p2.cfg <<CFG
name = "out2";
variants = ( "cpu_reference",
  { name = "ext2"; command = "FAKE2_OUTPUT_DIR=$tmp/p2 FAKE2_LOG=$tmp/p2.log sh $fake2"; protocol = 2; } );
baseline = "cpu_reference";
sweep = { B = 1; H = 2; S = [24, 25]; D = 16; causal = true; dtype = "fp16"; };
warmup = 1; samples = 6; round_size = 2; seed = 7;
CFG
"$AB" run p2.cfg --db p2.db >/dev/null 2>log2.txt; rc=$?
[ $rc = 3 ] || { cat log2.txt; fail "protocol 2 run: exit $rc, want 3 (S=25 fails its check)"; }
r=$(q p2.db "SELECT S || ':' || status FROM measurements WHERE variant = 'ext2' ORDER BY S" | tr '\n' ' ')
[ "$r" = "24:ok 25:failed " ] || fail "6. protocol 2: $r"
[ "$(cut -d' ' -f1 p2.log | sort -u | wc -l)" = 1 ] || fail "6. protocol 2: more than one adapter process"
[ -z "$(ls -A offered)" ] || fail "7. left in the offered folder: $(ls -A offered)"
echo "ok: correct output passes (48 of 48 rows), 1% scale and one wrong row fail, wrong size and a path not offered are errors, protocol 2 likewise, nothing left behind"
