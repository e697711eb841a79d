# make install: the binary to PREFIX/bin, the man page to
# PREFIX/share/man/man1, the library of properties to
# PREFIX/share/vigil/specs, the --view page's files to
# PREFIX/share/vigil/view (where the installed vigil finds them), all
# under DESTDIR; and the man page renders
# without a warning and fits 80 columns.
. "$(dirname "$0")/lib.sh"

# -o: the binary the tests run is the one installed; never rebuild it here
# (under SANITIZE=1 that would drop the sanitizers)
make --no-print-directory -o "$BUILD/vigil" install BUILD="$BUILD" \
	DESTDIR="$TMP/inst" >"$TMP/make.log" 2>&1 || { cat "$TMP/make.log"; fail "make install failed"; }
P=$TMP/inst/usr/local
[ -x "$P/bin/vigil" ] || fail "no $P/bin/vigil"
[ "$(stat -c %a "$P/bin/vigil")" = 755 ] || fail "bin/vigil is not 0755"
[ "$(stat -c %a "$P/share/man/man1/vigil.1")" = 644 ] || fail "no man1/vigil.1 0644"
for f in specs/lib/*.vigil; do
	cmp -s "$f" "$P/share/vigil/specs/$(basename "$f")" || fail "$f not installed"
done
for f in scripts/gdb/*.py; do	# the gdb extension vigil's command files source
	cmp -s "$f" "$P/share/vigil/$(basename "$f")" || fail "$f not installed"
done
for f in user/view/static/*; do
	cmp -s "$f" "$P/share/vigil/view/$(basename "$f")" || fail "$f not installed"
done
# vigil agent's systemd unit runs the installed binary; its config directory
u=$P/lib/systemd/system/vigil-agent.service
[ "$(stat -c %a "$u")" = 644 ] || fail "no vigil-agent.service 0644"
grep -qx "ExecStart=/usr/local/bin/vigil agent --config /etc/vigil/agent.d --metrics 127.0.0.1:9477" "$u" ||
	fail "the unit does not run the installed vigil agent"
grep -qx 'ExecReload=/bin/kill -HUP $MAINPID' "$u" || fail "the unit has no reload"
[ -d "$TMP/inst/etc/vigil/agent.d" ] || fail "no etc/vigil/agent.d"
cmp -s scripts/agent-example.conf "$P/share/vigil/agent-example.conf" || fail "no agent-example.conf"
# the unit's syntax (systemd-analyze, from setup.sh's systemd; the
# ExecStart binary is checked under DESTDIR)
command -v systemd-analyze >/dev/null || fail "no systemd-analyze (scripts/setup.sh installs systemd)"
{
	sed "s|/usr/local/bin/vigil|$P/bin/vigil|" "$u" >"$TMP/vigil-agent.service"
	systemd-analyze verify --man=no "$TMP/vigil-agent.service" >"$TMP/verify.out" 2>&1 ||
		{ cat "$TMP/verify.out"; fail "systemd-analyze verify failed"; }
	[ -s "$TMP/verify.out" ] && { cat "$TMP/verify.out"; fail "systemd-analyze verify warns"; }
}
"$P/bin/vigil" --version | grep -q '^vigil 0\.1\.0$' || fail "the installed vigil does not run"
"$P/bin/vigil" lint -D alloc=my_alloc -D release=my_free "$P/share/vigil/specs/double_free.vigil" ||
	fail "the installed library spec does not lint"

make --no-print-directory -o "$BUILD/vigil" install BUILD="$BUILD" \
	DESTDIR="$TMP/inst2" PREFIX=/opt/vigil >"$TMP/make.log" 2>&1 || { cat "$TMP/make.log"; fail "make install PREFIX= failed"; }
[ -x "$TMP/inst2/opt/vigil/bin/vigil" ] || fail "PREFIX not honoured"
[ -f "$TMP/inst2/opt/vigil/share/man/man1/vigil.1" ] || fail "PREFIX not honoured for the man page"

# the page renders, with no warning from groff, within 80 columns
for page in docs/vigil.1 "$P/share/man/man1/vigil.1"; do
	MANWIDTH=80 man --warnings -l "$page" >"$TMP/man.txt" 2>"$TMP/man.err" || fail "man -l $page failed"
	[ -s "$TMP/man.err" ] && { cat "$TMP/man.err"; fail "man --warnings: warnings for $page"; }
done
cat "$TMP/man.txt"
for s in NAME SYNOPSIS DESCRIPTION COMMANDS OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES "SEE ALSO"; do
	grep -q "^$s$" "$TMP/man.txt" || fail "the man page has no $s section"
done
python3 - "$TMP/man.txt" <<'EOF' || fail "the man page is wider than 80 columns"
import sys
wide = [l for l in open(sys.argv[1], encoding="utf-8").read().split("\n") if len(l) > 80]
sys.exit("\n".join(wide) if wide else 0)
EOF
# every option of every command's --help is in the page
for cmd in run attach check graph lint restore checkpoint agent; do
	"$VIGIL" "$cmd" --help | grep -oE -- '^  (-[A-Za-z], )?--[a-z][a-z-]+' |
		grep -oE -- '--[a-z][a-z-]+' | sort -u | while read -r opt; do
		grep -qF -- "$opt" "$TMP/man.txt" || fail "vigil $cmd --help has $opt, the man page does not"
	done || exit 1
done
echo ok
