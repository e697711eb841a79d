# docs/GUIDE.md, "Debugging with the monitor live": the session shown
# there runs. The `vigil run --interactive` line starts it, every
# `(gdb) CMD` line is given to gdb in order, and each line of output the
# guide shows appears in gdb's, with addresses and pids free to differ.
. "$(dirname "$0")/lib.sh"

python3 - "$TMP" docs/GUIDE.md <<'PY' || fail "cannot extract the live session from docs/GUIDE.md"
import re, sys
tmp, path = sys.argv[1], sys.argv[2]
text = open(path).read()
start = text.index("### Debugging with the monitor live")
end = text.index("\n## ", start)
blocks = re.findall(r"```[a-z]*\n(.*?)```", text[start:end], re.S)
run = [l for l in blocks[0].splitlines() if l.startswith("vigil run --interactive")][0]
session = [b for b in blocks if "(gdb) " in b][0]
cmds, want = [], []
for l in session.splitlines():
    if l.startswith("(gdb) "):
        cmds.append(l[6:])
        continue
    l = l.strip()
    if not l:
        continue
    rx = re.escape(l)
    rx = re.sub(r"0x[0-9a-f]+", "0x[0-9a-f]+", rx)
    # pids and tids (4 digits and more) differ; counts and lines do not
    rx = re.sub(r"(?<![\w\[])\d{4,}(?![\w\]])", r"[0-9]+", rx)
    want.append(rx)
open(tmp + "/run", "w").write(run.split(" ", 1)[1] + "\n")
open(tmp + "/cmds", "w").write("\n".join(cmds) + "\n")
open(tmp + "/want", "w").write("\n".join(want) + "\n")
PY
read -r -a args <"$TMP/run"
args=("${args[@]/build\/targets/$TARGETS}")
start_live "${args[@]}"
ex=""
while IFS= read -r c; do ex="$ex -ex '$c'"; done <"$TMP/cmds"
live_gdb "$ex"
while IFS= read -r rx; do
	grep -qE -- "^ *$rx\$" "$TMP/gdb" || fail "docs/GUIDE.md shows a line gdb did not print: /$rx/"
done <"$TMP/want"
wait_vigil
expect_rc 1
echo PASS
