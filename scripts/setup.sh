#!/usr/bin/env bash
# scripts/setup.sh - install what vigil needs on Debian 12 (bookworm), as root.
#
# Idempotent: packages are installed only when dpkg says they are missing, and
# CRIU is only touched when no CRIU on this machine passes `criu check` and
# has --allow-uprobes (CRIU 4.2: dumping a process that has hit a uprobe).
# A second run therefore installs nothing and takes a second or two.
# Detailed output of apt and make goes to $LOG; the terminal gets `setup:` lines.
set -Eeuo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C

LOG=/var/log/vigil-setup.log
STEP="start"

step() { STEP=$1; echo "setup: $1"; }
die()  { echo "setup: FAILED: $STEP: $*" >&2; exit 1; }
# Any command that fails outside an explicit check ends here, naming the step.
on_err() {
    local rc=$?
    echo "setup: FAILED: $STEP: '$BASH_COMMAND' exited with status $rc" >&2
    if [ -s "$LOG" ]; then echo "setup: last lines of $LOG:" >&2; tail -n 15 "$LOG" >&2; fi
    exit "$rc"
}
trap on_err ERR

PACKAGES=(
    # bpf/ and user/: CO-RE programs (clang -target bpf, vmlinux.h via bpftool),
    # libbpf skeletons, ELF and DWARF reading (sym/ uses libdwarf; libdw not needed);
    # g++: the C++ targets, and libstdc++ whose __cxa_demangle sym/cxxnames.c uses
    build-essential g++ make pkg-config clang llvm libbpf-dev bpftool
    libelf-dev libdwarf-dev zlib1g-dev
    # tests, debugger hand-off, benchmarks, reports
    gdb libcmocka-dev python3 valgrind bpftrace graphviz gnuplot-nox
    sqlite3 libsqlite3-dev xz-utils pigz git
    # --view: the page's HTTP server (libmicrohttpd); tests/e2e/view.sh
    # opens it in headless Chromium
    libmicrohttpd-dev chromium python3-websocket
    # libc's DWARF: its parameter names and types (tests/e2e/lint.sh)
    libc6-dbg
    # which files a run opens (tests/e2e/dwarf_cache.sh: a warm DWARF cache
    # leaves libc's debug file closed)
    strace
    # the control channel's JSON-lines protocol (user/ctl/)
    libjansson-dev
    # the in-process tier's relocator: decode and re-encode x86-64 (user/fast/reloc.c)
    libzydis-dev
    # --webhook: verdicts POSTed as JSON (user/webhook/), loaded when used
    libcurl4-openssl-dev
    # vigil agent: verdicts to journald with structured fields (sd_journal_send);
    # tests/e2e/agent_prometheus.sh scrapes --metrics with a real Prometheus;
    # systemd: journald for agent_journal.sh, systemd-analyze for install.sh
    libsystemd-dev prometheus systemd
    # clang's fuzzer runtime: make fuzz (tests/fuzz/, run by CI); only
    # recommended by clang's packages, so named here
    libclang-rt-14-dev
    # the man page: man -l renders docs/vigil.1 in tests/e2e/install.sh
    man-db groff-base
    # make bench: tclsh makes sqlite's amalgamation when
    # scripts/build_sqlite3.sh builds the shell with ASan
    tcl
    # build deps of CRIU 4.2 (see criu/Makefile.packages and Makefile.config)
    libprotobuf-c-dev protobuf-c-compiler libprotobuf-dev protobuf-compiler
    python3-protobuf libnl-3-dev libnet1-dev libcap-dev libbsd-dev
    libnftables-dev libgnutls28-dev uuid-dev
    # CRIU runtime: it calls `ip` to dump/restore network state
    iproute2
)

# CRIU comes from Debian unstable's *source* package (4.2.x), built here
# against bookworm's libraries. Why not 4.1 (trixie): the kernel maps a
# [uprobes] page into every process that has hit a uprobe, for good, and
# CRIU before 4.2 refuses to dump such a process ("Unsupported mapping");
# 4.2 added --allow-uprobes, which vigil's checkpoints need. Its deb-src entry lives
# outside /etc/apt/sources.list.d and has its own lists directory, so the
# normal apt (bookworm binaries) never sees it; the package caches are
# disabled for these calls so they do not overwrite the system's pkgcache.bin.
SID_SOURCES=/etc/vigil/sid-src.sources
SID_LISTS=/var/lib/vigil/apt-lists-sid
APT_SID=(-o Dir::Etc::SourceList="$SID_SOURCES" -o Dir::Etc::SourceParts=/dev/null
            -o Dir::State::Lists="$SID_LISTS"
            -o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache=)
CRIU_BUILD=/var/cache/vigil/criu
CRIU_DEST=/usr/local/sbin/criu

APT_UPDATED=no
apt_update_once() {
    [ "$APT_UPDATED" = yes ] && return 0
    step "apt-get update (bookworm)"
    apt-get update >>"$LOG" 2>&1
    APT_UPDATED=yes
}
installed() { [ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null || true)" = "install ok installed" ]; }

# `criu check` exits non-zero on failure, but "Looks good" is the real verdict.
criu_check_out() { "$1" check 2>&1 || true; }
criu_ok() {
    [ -x "$1" ] && criu_check_out "$1" | grep -q "Looks good" &&
        "$1" dump --help 2>&1 | grep -q -- --allow-uprobes
}

# ---------------------------------------------------------------- preconditions
step "check system"
[ "$(id -u)" -eq 0 ] || die "must run as root (try: sudo bash $0)"
: >"$LOG" 2>/dev/null || die "cannot write $LOG"
# shellcheck disable=SC1091
. /etc/os-release
[ "${VERSION_CODENAME:-}" = bookworm ] || die "expected Debian 12 (bookworm), found '${PRETTY_NAME:-unknown}'"

# ---------------------------------------------------------------- --vm
# scripts/vm.sh's guest: QEMU, a static busybox for its initramfs, and
# Debian 12's own kernel package (linux-image-amd64's dependency of the
# day), fetched with apt-get download into $VM_CACHE and checked against
# the SHA256 of apt's signed index. Only these; the last line of the
# output is the kernel package's path.
VM_CACHE=/var/cache/vigil/vm
if [ "${1:-}" = --vm ]; then
    missing=()
    for p in qemu-system-x86 busybox-static cpio; do installed "$p" || missing+=("$p"); done
    if [ ${#missing[@]} -gt 0 ]; then
        apt_update_once
        step "install ${missing[*]}"
        apt-get install -y --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1
    fi
    kpkg_of() { apt-cache depends linux-image-amd64 2>>"$LOG" |
        awk '/Depends: linux-image-6\.1\./ { print $2; exit }'; }
    kpkg=$(kpkg_of) || true
    if [ -z "$kpkg" ]; then apt_update_once; kpkg=$(kpkg_of) || true; fi
    [ -n "$kpkg" ] || die "no linux-image-6.1.*-amd64 behind linux-image-amd64 (see $LOG)"
    read -r kfile ksha < <(apt-cache show --no-all-versions "$kpkg" 2>>"$LOG" | awk '
        /^Filename:/ { n = split($2, a, "/"); f = a[n] } /^SHA256:/ { s = $2 }
        END { print f, s }') || true
    [ -n "${kfile:-}" ] && [ -n "${ksha:-}" ] || die "apt knows no file or SHA256 for $kpkg"
    mkdir -p "$VM_CACHE"
    deb_ok() { [ -f "$VM_CACHE/$kfile" ] && echo "$ksha  $VM_CACHE/$kfile" | sha256sum -c --quiet - >/dev/null 2>&1; }
    if ! deb_ok; then
        step "download $kfile into $VM_CACHE"
        rm -f "$VM_CACHE/$kfile"
        (cd "$VM_CACHE" && apt-get download "$kpkg" >>"$LOG" 2>&1)
        deb_ok || die "$kfile missing or SHA256 mismatch after apt-get download (see $LOG)"
    fi
    echo "setup: VM OK: qemu-system-x86, busybox-static, $kpkg (SHA256 checked)"
    echo "$VM_CACHE/$kfile"
    exit 0
fi

# ---------------------------------------------------------------- packages
missing=()
for p in "${PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -eq 0 ]; then
    echo "setup: all ${#PACKAGES[@]} packages already installed"
else
    apt_update_once
    step "install ${#missing[@]} packages: ${missing[*]}"
    apt-get install -y --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1
fi

# ---------------------------------------------------------------- CRIU
find_working_criu() {
    local c
    for c in "$CRIU_DEST" "$(command -v criu || true)"; do
        if [ -n "$c" ] && criu_ok "$c"; then echo "$c"; return 0; fi
    done
    return 1
}

build_criu_from_sid() {
    step "fetch Debian unstable source index (separate apt state in $SID_LISTS)"
    mkdir -p "$(dirname "$SID_SOURCES")" "$SID_LISTS/partial" "$CRIU_BUILD"
    cat >"$SID_SOURCES" <<'EOF'
# Written by vigil's scripts/setup.sh. Deliberately NOT in sources.list.d:
# only used with -o Dir::Etc::SourceList=<this file> to fetch CRIU's source.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
    apt-get "${APT_SID[@]}" update >>"$LOG" 2>&1

    # The orig tarball's SHA256 comes from the signed Sources index, so we can
    # check the download ourselves whatever apt-get source's exit status is.
    step "look up criu in unstable"
    local orig sha
    read -r sha orig < <(apt-cache "${APT_SID[@]}" showsrc criu 2>>"$LOG" | awk '
        /^Checksums-Sha256:/ { f = 1; next }
        f && /^ / { if ($3 ~ /\.orig\.tar\./) { print $1, $3; exit } ; next }
        { f = 0 }') || true
    [ -n "${orig:-}" ] || die "no criu source package with an orig tarball in unstable (see $LOG)"
    [[ $orig =~ ^criu_4\.([2-9]|[1-9][0-9]) ]] || die "unstable offers $orig, expected CRIU 4.2 or later"

    step "download $orig into $CRIU_BUILD"
    cd "$CRIU_BUILD"
    tarball_ok() { [ -f "$orig" ] && echo "$sha  $orig" | sha256sum -c --quiet - >/dev/null 2>&1; }
    if ! tarball_ok; then
        rm -f "$orig"
        # The archive currently lacks the .dsc and debian tarball (404), so
        # apt-get exits 100 even though the orig tarball arrives: ignore the
        # status and judge by the tarball and its checksum.
        apt-get "${APT_SID[@]}" source --download-only criu >>"$LOG" 2>&1 || true
        tarball_ok || die "$orig missing or SHA256 mismatch after apt-get source (see $LOG)"
    fi

    step "build CRIU from $orig (make criu, ~20 s)"
    rm -rf src && mkdir src
    tar -xf "$orig" -C src --strip-components=1
    make -C src -j"$(nproc)" criu >>"$LOG" 2>&1

    step "install $CRIU_DEST"
    install -D -m 0755 src/criu/criu "$CRIU_DEST"
    criu_ok "$CRIU_DEST" ||
        die "built CRIU fails 'criu check': $(criu_check_out "$CRIU_DEST" | tail -n 3 | tr '\n' ' ')"
}

step "check for a working criu"
if ! criu="$(find_working_criu)"; then
    # Try Debian 12's own package first: cheapest, if this kernel accepts it.
    if ! installed criu; then
        apt_update_once
        step "install Debian 12 criu package"
        apt-get install -y --no-install-recommends criu >>"$LOG" 2>&1
    fi
    if criu_ok /usr/sbin/criu; then
        criu=/usr/sbin/criu
    else
        out=$(criu_check_out /usr/sbin/criu); echo "$out" >>"$LOG"
        echo "setup: Debian's criu $(dpkg-query -W -f='${Version}' criu) fails 'criu check' or lacks --allow-uprobes:" \
             "$(awk '/Error/ && !/exited, status/ && !n++' <<<"$out")"
        # Remove it so neither its binary nor its 3.17 libcriu/headers shadow 4.x.
        step "remove Debian's criu package"
        apt-get purge -y criu >>"$LOG" 2>&1
        build_criu_from_sid
        criu=$CRIU_DEST
    fi
fi

# ---------------------------------------------------------------- summary
found="$(command -v criu || true)"
if [ "$found" != "$criu" ]; then
    echo "setup: WARNING: 'criu' on PATH is '${found:-nothing}', not the working $criu;" \
         "put $(dirname "$criu") first in PATH" >&2
fi
echo "setup: criu OK: $criu ($("$criu" --version | sed -n 1p)), 'criu check': Looks good, --allow-uprobes"
echo "setup: done"
