# A real C++ program from Debian: protoc (protobuf-compiler, which
# scripts/setup.sh installs), generating C++ from a small .proto, under
# the memory and mutex properties: no violation, and the blocks still
# allocated at exit are valgrind memcheck's count for the same run.
. "$(dirname "$0")/lib.sh"
SPECS="specs/lib/leak.vigil specs/lib/cxx_alloc.vigil specs/lib/mutex.vigil"
PROTOC=$(command -v protoc) || fail "protoc not installed (scripts/setup.sh installs protobuf-compiler)"

mkdir -p "$TMP/pb"
cat >"$TMP/pb/t.proto" <<'PROTO'
syntax = "proto3";
package demo;
message Item { int32 id = 1; string name = 2; repeated string tags = 3; }
message Order { int64 id = 1; repeated Item items = 2; map<string, int32> counts = 3; }
PROTO

# five kernel-tier properties share the kernel's slice table, which keeps
# every block address it has seen (slots are not reclaimed): protoc's
# 28,000 allocations can fill the default 65536 (then verdicts become
# inconclusive, as they must)
run_vigil run --max-slices 262144 $SPECS -- "$PROTOC" -I"$TMP/pb" --cpp_out="$TMP/pb" "$TMP/pb/t.proto"
expect_rc 1	# the blocks protoc leaves allocated are errors at the end
expect_out "ERROR SUMMARY: [1-9][0-9]* errors: leak.allocated=[0-9]+ \(at the end\), cxx_leak.live=[0-9]+ \(at the end\)$"
expect_no_out "VIOLATION|inconclusive"
[ -s "$TMP/pb/t.pb.cc" ] || fail "protoc wrote no t.pb.cc"
expect_out "before:pthread_mutex_lock=[1-9]"
leaked=$(sed -nE 's/^vigil: leak: live slices by state: free=[0-9]+ allocated=([0-9]+).*/\1/p' "$TMP/out")
newed=$(sed -nE 's/^vigil: cxx_mismatch: live slices by state: none=[0-9]+ newed=([0-9]+) newed_array=([0-9]+) malloced=([0-9]+).*/\1 \2 \3/p' "$TMP/out")
read -r n_new n_arr n_malloc <<<"$newed"
cxx_leaked=$(sed -nE 's/^vigil: cxx_leak: live slices by state: none=[0-9]+ live=([0-9]+).*/\1/p' "$TMP/out")
[ -n "$leaked" ] && [ -n "$n_new" ] && [ -n "$cxx_leaked" ] || fail "no live-slice counts"
# the C++ view and the C view count the same blocks: each new'd block is
# one malloc inside operator new, counted once
[ $((n_new + n_arr + n_malloc)) = "$leaked" ] ||
	fail "cxx_mismatch live blocks $n_new+$n_arr+$n_malloc != leak's $leaked"
[ $((n_new + n_arr)) = "$cxx_leaked" ] || fail "cxx_leak $cxx_leaked != new'd $n_new+$n_arr"

# memcheck on the same run, without the frees valgrind adds at exit
# (libc's and libstdc++'s freeres): a process run alone does not make them
rm -f "$TMP/pb/t.pb.cc" "$TMP/pb/t.pb.h"
valgrind --run-libc-freeres=no --run-cxx-freeres=no "$PROTOC" -I"$TMP/pb" \
	--cpp_out="$TMP/pb" "$TMP/pb/t.proto" >"$TMP/vg" 2>&1
cat "$TMP/vg" | grep -E "in use at exit|heap usage|ERROR SUMMARY"
vg_blocks=$(sed -nE 's/.*in use at exit: [0-9,]+ bytes in ([0-9,]+) blocks.*/\1/p' "$TMP/vg" | tr -d ,)
[ -n "$vg_blocks" ] || fail "no memcheck summary"
[ "$vg_blocks" = "$leaked" ] ||
	fail "vigil: $leaked blocks allocated at exit ($cxx_leaked new'd), memcheck: $vg_blocks"
echo "cxx_real: protoc: $leaked blocks in use at exit ($cxx_leaked new'd), memcheck $vg_blocks: ok"
