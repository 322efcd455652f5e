#!/bin/sh
# plugin.sh AB SRC BUILD BAD_ABI BAD_NOSYM BAD_OUTPUT BAD_CRASH: out-of-tree plugins,
# CPU only:
#  1. `meson install --destdir` of this build; examples/plugin configured
#     and built OUT OF TREE against the installed header and
#     attnbench-plugin.pc (PKG_CONFIG_PATH + PKG_CONFIG_SYSROOT_DIR);
#  2. one run of the installed attnbench with cpu_flash, the example CPU
#     plugin and four broken ones; the example's measurement is ok, checked,
#     sampled, and carries the library's path, size and SHA-256 (expected
#     values from stat and coreutils' sha256sum, independent of OpenSSL);
#  3. wrong ABI version, missing symbol, not a library: each stored 'error'
#     with a message naming the library, the field and file:line; a plugin
#     whose output is wrong is stored 'failed' by the check, one that
#     crashes (SIGSEGV) is stored 'error' by its worker process; the run is
#     complete and the report names the example.
set -u
AB=$1 SRC=$2 BUILD=$3 BAD_ABI=$4 BAD_NOSYM=$5 BAD_OUTPUT=$6 BAD_CRASH=$7
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
q() { sqlite3 "$tmp/p.db" "$1"; }

meson install -C "$BUILD" --no-rebuild --destdir "$tmp/dest" >"$tmp/install.log" 2>&1 ||
    { cat "$tmp/install.log"; fail "meson install"; }
pc=$(find "$tmp/dest" -name attnbench-plugin.pc | head -n 1)
[ -n "$pc" ] || fail "attnbench-plugin.pc not installed"
hdr=$(find "$tmp/dest" -path '*/include/attnbench/plugin.h' | head -n 1)
[ -n "$hdr" ] || fail "attnbench/plugin.h not installed"
ab=$(find "$tmp/dest" -path '*/bin/attnbench' | head -n 1)
[ -x "$ab" ] || fail "attnbench not installed"
PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR="$tmp/dest" \
    meson setup "$tmp/ex" "$SRC/examples/plugin" -Dcuda=disabled >"$tmp/setup.log" 2>&1 ||
    { cat "$tmp/setup.log"; fail "examples/plugin: meson setup against the installed attnbench"; }
ninja -C "$tmp/ex" >"$tmp/ninja.log" 2>&1 || { cat "$tmp/ninja.log"; fail "examples/plugin: build"; }
grep -q -- "-I$tmp/dest" "$tmp/ex/build.ninja" ||
    fail "examples/plugin did not take its include path from the installed attnbench"
lib="$tmp/ex/libexample_cpu.so"
[ -f "$lib" ] || fail "no $lib"
echo "this is not a shared library" >"$tmp/notalib.so"

cd "$tmp" || exit 1
cat >p.cfg <<CFG
name = "plugins";
variants = ( "cpu_flash",
  { name = "example_cpu"; library = "$lib"; },
  { name = "bad_abi"; library = "$BAD_ABI"; },
  { name = "bad_nosym"; library = "$BAD_NOSYM"; },
  { name = "not_a_library"; library = "$tmp/notalib.so"; },
  { name = "bad_plugin"; library = "$BAD_OUTPUT"; },
  { name = "crash_plugin"; library = "$BAD_CRASH"; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 2; S = [32, 48]; D = 16; dtype = "fp32"; };
warmup = 1; samples = 12; round_size = 3;
CFG
"$ab" run p.cfg --db p.db >run.out 2>run.err; rc=$?
[ $rc = 3 ] || { cat run.err; fail "run: exit $rc, want 3 (broken plugins stored as error/failed)"; }
grep -q "did not pass" run.err || fail "run does not say measurements did not pass"
[ "$(q "SELECT status FROM runs")" = complete ] || fail "run not complete"
# 2. the example: ok, checked, every sample stored, interleaved with cpu_flash
[ "$(q "SELECT count(*) FROM measurements WHERE variant='example_cpu' AND status='ok' AND checked=1 AND backend='plugin'")" = 2 ] ||
    fail "example_cpu: $(q "SELECT status, message FROM measurements WHERE variant='example_cpu'")"
[ "$(q "SELECT count(*) FROM samples JOIN measurements m ON m.id=measurement_id WHERE variant='example_cpu'")" = 24 ] ||
    fail "example_cpu: expected 2 x 12 samples"
[ "$(q "SELECT count(DISTINCT round) FROM samples JOIN measurements m ON m.id=measurement_id WHERE variant='example_cpu' AND S=32")" = 4 ] ||
    fail "example_cpu: samples not taken in 4 rounds of 3"
real=$(readlink -f "$lib")
want_sha=$(sha256sum "$real" | cut -d' ' -f1)
want_size=$(stat -c %s "$real")
rec=$(q "SELECT DISTINCT adapter_env FROM measurements WHERE variant='example_cpu'")
echo "$rec" | grep -q "\"library\":\"$real\"" || fail "record lacks the library path: $rec"
echo "$rec" | grep -q "\"size\":$want_size" || fail "record lacks the size $want_size: $rec"
if echo "$rec" | grep -q '"sha256":null'; then
    echo "note: attnbench built without libcrypto: $rec"
else
    echo "$rec" | grep -q "\"sha256\":\"$want_sha\"" || fail "record's SHA-256 is not sha256sum's $want_sha: $rec"
fi
# 3. broken plugins: stored, named, the run went on
line=$(grep -n 'name = "bad_abi"' p.cfg | cut -d: -f1)
for spec in "bad_abi|ABI version 99, attnbench expects 1|$BAD_ABI" \
            "bad_nosym|missing symbol attnbench_plugin_variants|$BAD_NOSYM" \
            "not_a_library|dlopen failed|$tmp/notalib.so"; do
    v=${spec%%|*} rest=${spec#*|}; want=${rest%%|*} path=${rest#*|}
    [ "$(q "SELECT count(*) FROM measurements WHERE variant='$v' AND status='error'")" = 2 ] ||
        fail "$v: not stored as an error per configuration"
    msg=$(q "SELECT DISTINCT message FROM measurements WHERE variant='$v'")
    case $msg in *"$want"*) ;; *) fail "$v: message lacks '$want': $msg" ;; esac
    case $msg in *"$path"*) ;; *) fail "$v: message does not name the library: $msg" ;; esac
    case $msg in *"p.cfg:"*"field 'library'"*) ;; *) fail "$v: message lacks file:line and field: $msg" ;; esac
    grep -q "$want" run.err || fail "$v: no error on stderr"
done
q "SELECT message FROM measurements WHERE variant='bad_abi'" | grep -q "p.cfg:$line:" ||
    fail "bad_abi: message does not give line $line"
[ "$(q "SELECT count(*) FROM measurements WHERE variant='bad_plugin' AND status='failed' AND checked=1")" = 2 ] ||
    fail "bad_plugin (O = V): $(q "SELECT status, message FROM measurements WHERE variant='bad_plugin'")"
[ "$(q "SELECT count(*) FROM measurements WHERE variant='crash_plugin' AND status='error' AND message LIKE '%$BAD_CRASH%plugin killed by SIGSEGV in run%'")" = 2 ] ||
    fail "crash_plugin: $(q "SELECT status, message FROM measurements WHERE variant='crash_plugin'")"
[ "$(q "SELECT count(*) FROM measurements WHERE variant='cpu_flash' AND status='ok'")" = 2 ] ||
    fail "cpu_flash did not survive the broken plugins"
run=$(cat run.out)
"$ab" report "$run" --db p.db -o r.md >/dev/null 2>&1 || fail "report"
grep -q example_cpu r.md || fail "report does not name example_cpu"
# provenance: `show`, the markdown and the JSON report name the library's
# real path and its SHA-256 (sha256sum's, computed above) or say it has none
if [ "$want_sha" ] && ! echo "$rec" | grep -q '"sha256":null'; then sha_md=", SHA-256 \`$want_sha\`" sha_txt=", SHA-256 $want_sha"
else sha_md=", no SHA-256 (attnbench built without libcrypto)" sha_txt="$sha_md"; fi
"$ab" show "$run" --db p.db >show.txt 2>&1 || fail "show"
grep -F "example_cpu" show.txt | grep -F " plugin " | grep -qF "library $real$sha_txt, $want_size bytes" ||
    { grep -A8 '^provenance' show.txt; fail "show lacks example_cpu's library and SHA-256"; }
grep -qF "| \`example_cpu\` | plugin | library \`$real\`$sha_md, $want_size bytes |" r.md ||
    { grep -A10 '^Provenance' r.md; fail "the report lacks example_cpu's library and SHA-256"; }
"$ab" report "$run" --db p.db --json -o r.json >/dev/null 2>&1 || fail "report --json"
tr -d ' \n' <r.json | grep -qF "\"example_cpu\":{\"route\":\"plugin\",\"library\":\"$lib\",\"path\":\"$real\",\"size\":$want_size," ||
    fail "the JSON report lacks example_cpu's provenance"
# 4. a bare file name is taken from the working directory
#    (docs/own-kernel.md): dlopen alone would search the loader's paths only
mkdir -p here && cp "$lib" here/libmine.so && cd here || fail "cd here"
cat >bare.cfg <<CFG
name = "plugin-bare-name";
variants = ( "cpu_flash", { name = "example_cpu"; library = "libmine.so"; },
             { name = "absent"; library = "libnosuchplugin.so"; } );
baseline = "cpu_flash";
sweep = { B = 1; H = 1; S = 32; D = 16; dtype = "fp32"; };
warmup = 1; samples = 4; round_size = 2;
CFG
"$ab" run bare.cfg --db bare.db >/dev/null 2>bare.err; rc=$?
[ $rc = 3 ] || { cat bare.err; fail "run with a bare library name: exit $rc, want 3 (the absent plugin)"; }
[ "$(sqlite3 bare.db "SELECT status FROM measurements WHERE variant='example_cpu'")" = ok ] ||
    fail "library = \"libmine.so\" in the working directory: $(sqlite3 bare.db "SELECT status, message FROM measurements WHERE variant='example_cpu'")"
sqlite3 bare.db "SELECT message FROM measurements WHERE variant='absent'" |
    grep -q "libnosuchplugin.so: not in the working directory" ||
    fail "a bare name found nowhere: $(sqlite3 bare.db "SELECT message FROM measurements WHERE variant='absent'")"
cd "$tmp" || exit 1
echo "ok: example plugin built out of tree, measured, checked and stored ($want_size bytes, $rec); 4 broken plugins stored as error/failed; a bare library name taken from the working directory"
