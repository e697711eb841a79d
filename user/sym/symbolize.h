/* Addresses in a running process to function, offset and source line:
 * the frames of a captured user stack, for the evidence of a violation.
 * Function names come from the ELF symbol tables, file:line from the DWARF
 * line table of the binary or library mapped there (none without DWARF). */
#ifndef VIGIL_SYMBOLIZE_H
#define VIGIL_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct vg_symbolizer;

struct vg_frame {
	uint64_t ip;
	char func[256];		/* demangled; "" when no symbol covers ip */
	uint64_t off;		/* ip - the function's start */
	char file[256];		/* source file, "" without DWARF */
	int line;
	char obj[256];		/* the mapped file, "" when not file-backed */
};

/* Reads pid's mappings now (none when the process is gone): addresses
 * are symbolized through them, frames by build id through the files they
 * name and those added. NULL only when out of memory. */
struct vg_symbolizer *vg_symbolizer_new(pid_t pid);
void vg_symbolizer_free(struct vg_symbolizer *s);
/* Reads pid's mappings again (libraries mapped since), adding to those it
 * had: an old one goes only where a new one overlaps it, since a process
 * that exits may show a part of its mappings; all stay when the process
 * is gone. (vg_symbolizer_new and vg_symbolizer_take read them exactly.) */
void vg_symbolizer_refresh(struct vg_symbolizer *s);

/* Reads pid's mappings again, exactly (what is no longer mapped goes:
 * the process must be held, as at the loader's rendezvous), and opens
 * each file mapped there, while the process is there to reach it (a
 * process in a container names its files through its own root,
 * /proc/PID/root, which goes with it; a file may be replaced): symbols
 * and lines are read from that descriptor when first asked. */
void vg_symbolizer_take(struct vg_symbolizer *s);

/* caller: ip is a return address (every frame but the innermost), so the
 * call is the instruction before it. */
void vg_symbolize(struct vg_symbolizer *s, uint64_t ip, bool caller,
		  struct vg_frame *f);

/* A frame by file: the file with this GNU build id among those the
 * process had mapped when the symbolizer read its maps, or were added. */
void vg_symbolize_file(struct vg_symbolizer *s, const uint8_t *build_id,
		       uint64_t fileoff, bool caller, struct vg_frame *f);
void vg_symbolizer_add_file(struct vg_symbolizer *s, const char *path);
/* The program at path was mapped with its lowest executable address at
 * start_code (the kernel's mm->start_code, from the exec), and its
 * dynamic loader (PT_INTERP) at interp_base (AT_BASE; 0: none): their
 * mappings as the process had them, and their symbol tables read now, so
 * that their addresses are named even when the process is gone before
 * anyone asks (a later read of live mappings replaces these; nothing is
 * added for a file the live ones had). */
void vg_symbolizer_add_program(struct vg_symbolizer *s, const char *path,
			       uint64_t start_code, uint64_t interp_base);

/* The global or static variable at addr in the process: the ELF
 * STT_OBJECT symbols of the program and its libraries (a static's from
 * .symtab, with the source file its STT_FILE names), else, for an object
 * without .symtab, the variables its DWARF knows (in it, or in its debug
 * file). False when none holds addr. */
struct vg_data_sym {
	char name[256];
	uint64_t off;		/* addr - the variable's start */
	uint64_t size;		/* bytes */
	bool local;		/* a static: not visible outside its file */
	char file[256];		/* a static's source file, "" unknown */
};
bool vg_symbolize_global(struct vg_symbolizer *s, uint64_t addr,
			 struct vg_data_sym *out);

/* "release+0x12 (tests/targets/allocs.c:13)", "free+0x1e (libc.so.6)" */
void vg_frame_format(const struct vg_frame *f, char *buf, size_t len);

#endif
