#!/usr/bin/env python3
"""How many uprobes are attached to FILE, whoever owns them: those of
multi-uprobe links (BPF_TRACE_UPROBE_MULTI, read through bpf(2): Debian
12's bpftool does not decode them) plus the single ones `bpftool perf list`
shows. With --links: how many multi-uprobe links hold uprobes on FILE. With --sites: one line per
uprobe of those links, "uprobe 0xOFFSET" or "uretprobe 0xOFFSET", sorted.

    python3 tests/e2e/uprobes_on.py [--links|--sites] FILE
"""
import ctypes
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


def multi_on(path, sites=None):
    """(uprobes, links) of multi-uprobe links on path; their sites are
    appended to sites"""
    nprobes = nlinks = 0
    for lid in link_ids():
        fd, _ = bpf(BPF_LINK_GET_FD_BY_ID, struct.pack("=I", lid).ljust(16, b"\0"))
        if fd < 0:
            continue
        try:
            name = ctypes.create_string_buffer(4096)
            offs = (ctypes.c_uint64 * 1024)()
            info = bytearray(256)
            # uprobe_multi: path, offsets, ref_ctr_offsets, cookies,
            # path_size, count, flags, pid (from offset 16)
            struct.pack_into("=QQQQII", info, 16, ctypes.addressof(name),
                             ctypes.addressof(offs), 0, 0, 4096, 1024)
            infobuf = ctypes.create_string_buffer(bytes(info), len(info))
            attr = struct.pack("=IIQ", fd, len(info), ctypes.addressof(infobuf))
            r, _ = bpf(BPF_OBJ_GET_INFO_BY_FD, attr.ljust(16, b"\0"))
            if r < 0:
                continue
            ltype = struct.unpack_from("=I", infobuf.raw, 0)[0]
            if ltype != BPF_LINK_TYPE_UPROBE_MULTI:
                continue
            count, flags = struct.unpack_from("=II", infobuf.raw, 16 + 36)
            if name.value.decode(errors="replace") == path:
                nprobes += count
                nlinks += 1
                kind = "uretprobe" if flags & 1 else "uprobe"
                if sites is not None:
                    sites += ["%s 0x%x" % (kind, offs[i]) for i in range(min(count, 1024))]
        finally:
            os.close(fd)
    return nprobes, nlinks


def singles_on(path):
    try:
        out = subprocess.run(["bpftool", "perf", "list"], capture_output=True,
                             text=True).stdout
    except OSError:
        return 0
    return sum(1 for line in out.splitlines() if f"filename {path} " in line + " ")


def main():
    args = sys.argv[1:]
    mode = args[0] if args[:1] in (["--links"], ["--sites"]) else None
    if mode:
        args = args[1:]
    if len(args) != 1:
        sys.exit(__doc__)
    path = os.path.realpath(args[0])
    sites = []
    nprobes, nlinks = multi_on(path, sites)
    if mode == "--sites":
        print("\n".join(sorted(sites)))
    else:
        print(nlinks if mode else nprobes + singles_on(path))


if __name__ == "__main__":
    main()
