#!/usr/bin/env python3
"""How many uprobes are attached to FILE, whoever owns them: those of
multi-uprobe links (BPF_TRACE_UPROBE_MULTI, read through bpf(2): Debian
12's bpftool does not decode them) plus the single ones `bpftool perf list`
shows. With --links: how many multi-uprobe links hold uprobes on FILE. With --sites: one line per
uprobe of those links, "uprobe 0xOFFSET" or "uretprobe 0xOFFSET", sorted;
with --sites-full the same with the event (the cookie's low half) and the
program that runs there: "uprobe 0xOFFSET event 1 vg_entry". With --table
N: the event table (the ev_conf map) of the programs attached on FILE, its
first N entries, one "table N: ..." line each in the form
`vigil lint --binary` prints its plan's (user/plan/plan_print.c). With
--pid PID: only the multi-uprobe links of process PID (0: of any), FILE
taken as the kernel names it (not resolved here): a file in another mount
namespace is named from that namespace's root, /lib/libc.so.6 for a
container's own libc.

    python3 tests/e2e/uprobes_on.py [--links|--sites|--sites-full] FILE
    python3 tests/e2e/uprobes_on.py --table N FILE
    python3 tests/e2e/uprobes_on.py --pid PID FILE
"""
import ctypes
import json
import os
import struct
import subprocess
import sys

SYS_BPF = 321  # x86-64
BPF_OBJ_GET_INFO_BY_FD = 15
BPF_LINK_GET_FD_BY_ID = 30
BPF_LINK_GET_NEXT_ID = 31
BPF_LINK_TYPE_UPROBE_MULTI = 12

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def bpf(cmd, attr):
    buf = ctypes.create_string_buffer(bytes(attr), len(attr))
    r = libc.syscall(SYS_BPF, cmd, buf, len(attr))
    return r, buf.raw


def link_ids():
    start = 0
    while True:
        r, out = bpf(BPF_LINK_GET_NEXT_ID, struct.pack("=II", start, 0).ljust(16, b"\0"))
        if r < 0:
            return
        start = struct.unpack_from("=I", out, 4)[0]
        yield start


def multi_on(path, sites=None, full=False, progs=None, pid=None):
    """(uprobes, links) of multi-uprobe links on path; their sites are
    appended to sites (with event and program when full), their programs'
    ids added to progs"""
    nprobes = nlinks = 0
    for lid in link_ids():
        fd, _ = bpf(BPF_LINK_GET_FD_BY_ID, struct.pack("=I", lid).ljust(16, b"\0"))
        if fd < 0:
            continue
        try:
            name = ctypes.create_string_buffer(4096)
            offs = (ctypes.c_uint64 * 1024)()
            cookies = (ctypes.c_uint64 * 1024)()
            info = bytearray(256)
            # uprobe_multi: path, offsets, ref_ctr_offsets, cookies,
            # path_size, count, flags, pid (from offset 16)
            struct.pack_into("=QQQQII", info, 16, ctypes.addressof(name),
                             ctypes.addressof(offs), 0,
                             ctypes.addressof(cookies), 4096, 1024)
            infobuf = ctypes.create_string_buffer(bytes(info), len(info))
            attr = struct.pack("=IIQ", fd, len(info), ctypes.addressof(infobuf))
            r, _ = bpf(BPF_OBJ_GET_INFO_BY_FD, attr.ljust(16, b"\0"))
            if r < 0:
                continue
            ltype = struct.unpack_from("=I", infobuf.raw, 0)[0]
            if ltype != BPF_LINK_TYPE_UPROBE_MULTI:
                continue
            count, flags = struct.unpack_from("=II", infobuf.raw, 16 + 36)
            lpid = struct.unpack_from("=I", infobuf.raw, 16 + 44)[0]
            if pid and lpid != pid:
                continue
            if name.value.decode(errors="replace") == path:
                nprobes += count
                nlinks += 1
                kind = "uretprobe" if flags & 1 else "uprobe"
                prog_id = struct.unpack_from("=I", infobuf.raw, 8)[0]
                if progs is not None:
                    progs.add(prog_id)
                pname = prog_name(prog_id) if full else ""
                for i in range(min(count, 1024) if sites is not None else 0):
                    if full:
                        sites.append("%s 0x%x event %d %s" % (kind, offs[i],
                                     cookies[i] & 0xffffffff, pname))
                    else:
                        sites.append("%s 0x%x" % (kind, offs[i]))
        finally:
            os.close(fd)
    return nprobes, nlinks


def bpftool_json(*args):
    out = subprocess.run(["bpftool", "-j", *args], capture_output=True,
                         text=True).stdout
    return json.loads(out) if out.strip() else None


def prog_name(prog_id):
    info = bpftool_json("prog", "show", "id", str(prog_id))
    return info.get("name", "?") if info else "?"


CONV = ["raw", "sext", "zext", "bool"]
EVF_ARGS, EVF_RETX = 0x8, 0x10
ARG_REG, ARG_NONE = 0, 2


def table_line(c):
    """one entry of the event table, as vigil lint --binary prints it"""
    out = ["flags=0x%x" % c["flags"]]
    for k, a in enumerate(c["arg"]):
        if not c["flags"] & EVF_ARGS or a["where"] == ARG_NONE or not a["size"]:
            continue
        where = "reg%d" % a["reg"] if a["where"] == ARG_REG else "stack%d" % a["stack_off"]
        out.append("arg%d=%s/%s%d" % (k, where, CONV[a["conv"] & 3], a["size"]))
    if c["flags"] & EVF_RETX:
        out.append("ret=%s%d" % (CONV[c["ret_conv"] & 3], c["ret_size"]))
    for k, cp in enumerate(c["cap"][:c["ncaps"]]):
        t = "cap%d=s%d" % (k, cp["src"])
        for i, off in enumerate(cp["off"][:cp["nsteps"]]):
            t += "%s%d" % (">" if i else "+", off)
        t += "/str%d" % cp["str_idx"] if cp["str"] else \
            "/%d%s" % (cp["size"], "s" if cp["is_signed"] else "")
        out.append(t)
    if c["inside"]:
        out.append("inside=%d" % c["inside"])
    if c["outside"]:
        out.append("outside=0x%x" % c["outside"])
    if c["arms"]:
        out.append("arms=0x%x" % c["arms"])
    for k in range(min(c["nkprops"], len(c["kprop"]))):
        out.append("kprop%d=b%d/s%d,%d" % (c["kprop"][k], c["kbind"][k],
                                          c["kslot"][k][0], c["kslot"][k][1]))
    out.append("slots=%d" % c["rec_slots"])
    return " ".join(out)


def tables(path, n):
    """the ev_conf maps of the programs attached on path"""
    progs = set()
    multi_on(path, progs=progs)
    # every map's name in one call: one call per map took seconds on a
    # busy machine, and the target's run could end before the last one
    ev_conf = {m["id"] for m in bpftool_json("map", "show") or []
               if m.get("name") == "ev_conf"}
    maps = set()
    for pid in progs:
        info = bpftool_json("prog", "show", "id", str(pid)) or {}
        maps.update(mid for mid in info.get("map_ids", []) if mid in ev_conf)
    lines = []
    for mid in sorted(maps):
        for e in bpftool_json("map", "dump", "id", str(mid)) or []:
            f = e.get("formatted")
            if f and f["key"] < n:
                lines.append((f["key"], "table %d: %s" % (f["key"], table_line(f["value"]))))
    return [line for _, line in sorted(lines)]


def singles_on(path):
    try:
        out = subprocess.run(["bpftool", "perf", "list"], capture_output=True,
                             text=True).stdout
    except OSError:
        return 0
    return sum(1 for line in out.splitlines() if f"filename {path} " in line + " ")


def main():
    args = sys.argv[1:]
    if args[:1] == ["--table"] and len(args) == 3:
        print("\n".join(tables(os.path.realpath(args[2]), int(args[1]))))
        return
    if args[:1] == ["--pid"] and len(args) == 3:
        print(multi_on(args[2], pid=int(args[1]))[0])
        return
    mode = args[0] if args[:1] in (["--links"], ["--sites"], ["--sites-full"]) else None
    if mode:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    path = os.path.realpath(args[0])
    sites = []
    nprobes, nlinks = multi_on(path, sites, full=mode == "--sites-full")
    if mode in ("--sites", "--sites-full"):
        print("\n".join(sorted(sites)))
    else:
        print(nlinks if mode else nprobes + singles_on(path))


if __name__ == "__main__":
    main()
