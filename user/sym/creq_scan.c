/* The client requests in a file's code (creq_scan.h): a search for the
 * 16 bytes of the preamble followed by the xchg, in each executable
 * segment as the file holds it. The preamble cannot occur by chance in
 * compiled code (four rotations of %rdi summing to 128 bits), so a match
 * is a request, wherever it is; a match across two segments cannot be,
 * and is not looked for. */
#include "creq_scan.h"
#include "sym_internal.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vigil_creq.h"

static const uint8_t preamble[] = VG_CREQ_PREAMBLE;
static const uint8_t xchg[] = VG_CREQ_XCHG;

size_t vg_creq_scan_buf(const uint8_t *buf, size_t n, uint64_t base,
			uint64_t *out, size_t max)
{
	const size_t len = VG_CREQ_PREAMBLE_LEN + VG_CREQ_XCHG_LEN;
	size_t found = 0, i = 0;

	while (n >= len && i <= n - len) {
		const uint8_t *p = memchr(buf + i, preamble[0], n - len + 1 - i);

		if (!p)
			break;
		i = (size_t)(p - buf);
		if (!memcmp(p, preamble, VG_CREQ_PREAMBLE_LEN) &&
		    !memcmp(p + VG_CREQ_PREAMBLE_LEN, xchg, VG_CREQ_XCHG_LEN)) {
			if (found < max)
				out[found] = base + i + VG_CREQ_PREAMBLE_LEN;
			found++;
			i += len;
			continue;
		}
		i++;
	}
	return found;
}

/* one segment's requests appended to *out */
static int scan_segment(int fd, uint64_t off, uint64_t size, uint64_t **out,
			size_t *n, struct vg_err *e, const char *path)
{
	uint8_t *buf = malloc(size ? size : 1);
	size_t got, more;
	uint64_t *v;

	if (!buf)
		return vg_errf(e, "out of memory");
	if (pread(fd, buf, size, (off_t)off) != (ssize_t)size) {
		free(buf);
		return vg_errf(e, "%s: cannot read its code at offset 0x%llx",
			       path, (unsigned long long)off);
	}
	got = vg_creq_scan_buf(buf, size, off, NULL, 0);
	if (got) {
		v = realloc(*out, (*n + got) * sizeof(**out));
		if (!v) {
			free(buf);
			return vg_errf(e, "out of memory");
		}
		*out = v;
		more = vg_creq_scan_buf(buf, size, off, v + *n, got);
		*n += more;
	}
	free(buf);
	return 0;
}

int vg_creq_scan_file(const char *path, uint64_t **out, size_t *n,
		      struct vg_err *e)
{
	struct vg_elf_file f;
	size_t nph = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (vg_elf_file_open(path, &f, e))
		return -1;
	if (elf_getphdrnum(f.elf, &nph))
		nph = 0;
	for (size_t i = 0; i < nph && !rc; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(f.elf, (int)i, &ph) || ph.p_type != PT_LOAD ||
		    !(ph.p_flags & PF_X) || !ph.p_filesz)
			continue;
		rc = scan_segment(f.fd, ph.p_offset, ph.p_filesz, out, n, e,
				  path);
	}
	vg_elf_file_close(&f);
	if (rc) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return rc;
}
