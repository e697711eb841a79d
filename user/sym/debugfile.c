/* A binary's separate debug file (Debian's -dbg packages, libc6-dbg): by
 * build id under ROOT/.build-id/, else by .gnu_debuglink beside the binary,
 * in its .debug/ and under ROOT, checked by CRC; ROOT is /usr/lib/debug or
 * VIGIL_DEBUG_DIR. For user/sym/dwarf.c. */
#include "dwarf_internal.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

static bool has_debug_info(const char *path)
{
	struct vg_elf_file f;
	struct vg_err e;
	bool ok;

	if (vg_elf_file_open(path, &f, &e))
		return false;
	ok = vg_elf_has_section(f.elf, ".debug_info");
	vg_elf_file_close(&f);
	return ok;
}

static Elf_Data *section_data(Elf *elf, const char *name)
{
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *n;

		if (gelf_getshdr(scn, &sh) &&
		    (n = elf_strptr(elf, shstrndx, sh.sh_name)) &&
		    !strcmp(n, name) && sh.sh_type != SHT_NOBITS)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static bool crc_matches(const char *path, uint32_t want)
{
	unsigned char buf[65536];
	uLong crc = crc32(0L, Z_NULL, 0);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		crc = crc32(crc, buf, (uInt)n);
	close(fd);
	return n == 0 && (uint32_t)crc == want;
}

/* Where distributions put debug files: VIGIL_DEBUG_DIR, or /usr/lib/debug
 * (gdb's debug-file-directory). */
static const char *debug_root(void)
{
	const char *d = getenv("VIGIL_DEBUG_DIR");

	return d && *d ? d : "/usr/lib/debug";
}

bool dw_build_id(Elf *elf, char *hex, size_t len)
{
	Elf_Data *d = section_data(elf, ".note.gnu.build-id");
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;

	while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		const unsigned char *id = (unsigned char *)d->d_buf + doff;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2 ||
		    2 * (size_t)nh.n_descsz >= len)
			continue;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(hex + 2 * i, 3, "%02x", id[i]);
		return true;
	}
	return false;
}

bool dw_build_id_debug_file(Elf *elf, char *path, size_t len)
{
	char hex[256];
	int n;

	if (!dw_build_id(elf, hex, sizeof(hex)))
		return false;
	n = snprintf(path, len, "%s/.build-id/%.2s/%s.debug", debug_root(),
		     hex, hex + 2);
	return n > 0 && (size_t)n < len;
}

char *dw_find_debug_file(Elf *elf, const char *binpath)
{
	char path[PATH_MAX], real[PATH_MAX], dir[PATH_MAX];
	Elf_Data *d;

	/* 1. by build id: ROOT/.build-id/ab/cdef....debug */
	if ((d = section_data(elf, ".note.gnu.build-id"))) {
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *id = (unsigned char *)d->d_buf + doff;
			int len;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_descsz < 2)
				continue;
			len = snprintf(path, sizeof(path), "%s/.build-id/%02x/",
				       debug_root(), id[0]);
			for (size_t i = 1; i < nh.n_descsz && len < PATH_MAX - 8;
			     i++)
				len += snprintf(path + len, sizeof(path) - len,
						"%02x", id[i]);
			snprintf(path + len, sizeof(path) - len, ".debug");
			if (has_debug_info(path))
				return strdup(path);
		}
	}
	/* 2. by .gnu_debuglink: NAME next to the binary, in .debug/ there,
	 * or under ROOT/<the binary's directory>; the CRC must match */
	if ((d = section_data(elf, ".gnu_debuglink")) && d->d_size > 4) {
		const char *name = d->d_buf;
		size_t nl = strnlen(name, d->d_size);
		uint32_t crc;
		char *slash;

		if (nl + 4 > d->d_size || !realpath(binpath, real))
			return NULL;
		memcpy(&crc, (char *)d->d_buf + ((nl + 4) & ~(size_t)3), 4);
		snprintf(dir, sizeof(dir), "%s", real);
		if ((slash = strrchr(dir, '/')))
			*slash = 0;
		for (int i = 0; i < 3; i++) {
			int n;

			if (i == 0)
				n = snprintf(path, sizeof(path), "%s/%s", dir,
					     name);
			else if (i == 1)
				n = snprintf(path, sizeof(path),
					     "%s/.debug/%s", dir, name);
			else
				n = snprintf(path, sizeof(path), "%s%s/%s",
					     debug_root(), dir, name);
			if (n < 0 || (size_t)n >= sizeof(path))
				continue;
			if (strcmp(path, real) && crc_matches(path, crc) &&
			    has_debug_info(path))
				return strdup(path);
		}
	}
	return NULL;
}

/* --- open / close ------------------------------------------------------- */
