# The examples in README.md, docs/*.md and docs/reference/*.md run, so the
# docs cannot rot:
#  - every fenced block that is a whole spec (it has a `property` line and
#    a `state`, and no "..." line leaving some out) loads: `vigil lint`
#    accepts it;
#  - every `vigil run|check|lint|graph` command shown (as `vigil ...`,
#    `build/vigil ...` or `$ sudo build/vigil ...`) whose files are in the
#    repository runs, with the exit status its shown output implies
#    (1 when it shows a VIOLATION; 0 or 1 when it is cut with "..." or
#    not shown),
#    and the lines of that output that do
#    not depend on the run (the tier of each property, VIOLATION of which
#    property, the `state A -> B` of the report) appear in what it prints.
# Commands on the reader's program or pid (`-- ./prog`, `attach -p 1234`),
# gdb and make lines are not run. bench/ and CI run their own commands.
. "$(dirname "$0")/lib.sh"

python3 - "$TMP" README.md docs/*.md docs/reference/*.md <<'PY' || fail "cannot extract the examples"
import os, re, sys
tmp, files = sys.argv[1], sys.argv[2:]
specs, cmds = [], []
for f in files:
    text = open(f).read()
    blocks = [(m.start(), m.group(1)) for m in re.finditer(r"```[a-z]*\n(.*?)```", text, re.S)]
    for i, (pos, b) in enumerate(blocks):
        line = text.count("\n", 0, pos) + 1
        if (re.search(r"^property \w+", b, re.M) and re.search(r"^state \w+", b, re.M)
                and not re.search(r"^\s*\.\.\.\s*$", b, re.M)):
            specs.append((f, line, b))
            continue
        # a command continued with a backslash is one line (the line
        # numbers below count the joined lines: close enough to find it)
        lines = re.sub(r"\\\n\s*", " ", b).splitlines()
        for k, l in enumerate(lines):
            m = re.match(r"^(?:\$ )?(?:sudo )?(?:build/)?vigil ((run|check|lint|graph) .*)$", l)
            # --interactive waits for gdb: live_docs.sh runs that session
            if not m or re.search(r"\bPID\b|-p \d|PROG\b|SPEC\b|PROGRAM\b|\.\.\.|\./prog\b|--interactive", l):
                continue
            # the output shown: the rest of this block, or the next block
            # when this one is only the command
            shown = []
            for x in lines[k + 1:]:
                if re.match(r"^(\$ )?(sudo )?(build/)?(vigil|gdb|make) ", x):
                    break
                shown.append(x)
            if not any(s.strip() for s in shown) and i + 1 < len(blocks):
                nxt = blocks[i + 1][1]
                if nxt.lstrip().startswith("vigil:"):
                    shown = nxt.splitlines()
            # the shell's redirections are the reader's, not vigil's
            cmd = re.sub(r"\s+\d?>>?&?\S+", "", m.group(1))
            cmds.append((f, line + 1 + k, cmd, shown))
with open(os.path.join(tmp, "specs.list"), "w") as out:
    for n, (f, line, b) in enumerate(specs):
        p = os.path.join(tmp, "doc-spec-%d.vigil" % n)
        open(p, "w").write(b)
        out.write("%s\t%s:%d\n" % (p, f, line))
with open(os.path.join(tmp, "cmds.list"), "w") as out:
    for n, (f, line, c, shown) in enumerate(cmds):
        want = []
        for s in shown:
            s = s.strip()
            for rx in (r"^vigil: (\w+: (kernel|user) tier)\b", r"^vigil: (VIOLATION of \w+)",
                       r"^(state  \w+ -> \w+)"):
                m = re.match(rx, s)
                if m:
                    want.append(m.group(1))
        # a shown output that leaves lines out ("...") tells no status:
        # then anything but a usage or runtime error (2, 3) will do
        if any(w.startswith("VIOLATION") for w in want):
            rc = 1
        elif any(x.strip() == "..." for x in shown) or not any(x.strip() for x in shown):
            rc = -1
        else:
            rc = 0
        out.write("%s:%d\t%s\t%d\t%s\n" % (f, line, c, rc, "|".join(want)))
PY

nspecs=0
while IFS=$'\t' read -r file where; do
	echo "+ $where"
	"$VIGIL" lint "$file" >"$TMP/out" 2>&1 || { cat "$TMP/out"; fail "$where: the spec shown does not load"; }
	nspecs=$((nspecs + 1))
done <"$TMP/specs.list"

ncmds=0
nblind=0
here=$(pwd -P)
has_debug_regs && regs=yes || regs=no
while IFS=$'\t' read -r where cmd rc want; do
	# only commands whose files are all here
	missing=
	for w in $cmd; do
		case "$w" in
		specs/* | build/targets/* | tests/*) [ -e "$w" ] || missing=$w ;;
		esac
	done
	[ -z "$missing" ] || fail "$where: '$cmd' names $missing, which does not exist"
	echo "+ $where: vigil $cmd"
	# a --checkpoint-dir of the example's is removed after, if it is new
	ckdir=$(sed -nE 's/.*--checkpoint-dir ([^ ]+).*/\1/p' <<<"$cmd")
	[ -n "$ckdir" ] && [ -e "$ckdir" ] && ckdir=
	# in a directory where build/targets is this build's (build-san's
	# under SANITIZE=1), so the paths work as the docs write them
	# shellcheck disable=SC2086 # the command as the docs show it
	(cd "$TMP" && ln -sfn "$here/specs" specs && ln -sfn "$here/tests" tests &&
		mkdir -p build && ln -sfn "$here/$BUILD/targets" build/targets &&
		timeout 120 "$here/$VIGIL" $cmd </dev/null >"$TMP/out" 2>&1)
	got=$?
	cat "$TMP/out"
	[ -n "$ckdir" ] && rm -rf "$ckdir"
	for pid in $(sed -nE 's/.*target pid ([0-9]+) is (left stopped|restored from).*/\1/p' "$TMP/out"); do
		LEFT_PIDS+=("$pid")
		kill -KILL "$pid"
	done
	# where the debug registers do not fire, an example that watches
	# memory cannot show what the docs show: vigil must say so first,
	# arm nothing and report no violation it did not see; counted, and
	# the test skips at its end
	if [ "$regs" = no ] && grep -q "^vigil: this machine's debug registers do not fire" "$TMP/out"; then
		expect_no_out "watchpoints: [1-9][0-9]* armed"
		[ "$got" -le 1 ] || fail "$where: 'vigil $cmd' exited $got"
		nblind=$((nblind + 1))
		continue
	fi
	if [ "$rc" -lt 0 ]; then
		[ "$got" -le 1 ] || fail "$where: 'vigil $cmd' exited $got"
	else
		[ "$got" -eq "$rc" ] || fail "$where: 'vigil $cmd' exited $got, the docs imply $rc"
	fi
	IFS='|' read -ra lines <<<"$want"
	for l in "${lines[@]}"; do
		grep -qF -- "$l" "$TMP/out" || fail "$where: the docs show '$l', the run did not print it"
	done
	ncmds=$((ncmds + 1))
done <"$TMP/cmds.list"

[ "$nspecs" -ge 3 ] || fail "only $nspecs specs found in the docs: is the extractor broken?"
[ "$ncmds" -ge 4 ] || fail "only $ncmds commands found in the docs: is the extractor broken?"
echo "ok: $nspecs specs and $ncmds commands from the docs"
[ "$nblind" -eq 0 ] ||
	skip debug_regs "$nblind commands from the docs watch memory and were not checked: $WHY"
