/* The files a checkpointed process writes to (its stdout and stderr
 * redirected to a log, a log it opened itself), and how a restore gets
 * past them.
 *
 * CRIU saves a regular file's size with the image and refuses to restore
 * a process whose file has another size since ("has bad size"): every run
 * that writes to a log after the checkpoint would make it unrestorable.
 * So the checkpoint notes, beside the image (DIR/outfiles), each regular
 * file the process had open for writing, and the restore hands CRIU an
 * open descriptor of that file through `--inherit-fd fd[N]:PATH` instead:
 *  - inside the session, the very descriptor the old process had
 *    (pidfd_getfd before it is killed): same file offset, same flags, the
 *    offset shared as before with vigil's own stdout/stderr when the
 *    shell redirected them together;
 *  - from `vigil restore DIR`, the file opened again with the saved flags
 *    and positioned at its end.
 * Either way the restored program writes on after what the file holds
 * (the abandoned run's output stays, as on a terminal). Files are not
 * rolled back: one the program also reads (opened O_RDWR: Python's "w+"
 * log, a data file) holds what the abandoned run wrote too. Files open
 * only for reading keep CRIU's size check.
 *
 * A terminal the process has open (`vigil run --interactive` on a
 * terminal: its stdin, stdout and stderr) has its master outside the
 * dump, which CRIU refuses ("Found slave peer index 0 without correspond
 * master peer"). The dump takes it as external (`--external
 * tty[RDEV:DEV]`) and the restore hands CRIU the same terminal opened
 * again (`--inherit-fd fd[N]:tty[RDEV:DEV]`), as container runtimes do
 * for their consoles; the restored program writes on to that terminal. */
#ifndef VIGIL_OUTFILES_H
#define VIGIL_OUTFILES_H

#include <stdbool.h>
#include <sys/types.h>

#include "util/err.h"

#define VG_OUTFILES_MAX 16
#define VG_TTY_ID_MAX 40		/* "tty[RDEV:DEV]", hex, with its NUL */

struct vg_outfiles {
	int n;
	int fd[VG_OUTFILES_MAX];		/* close-on-exec; criu's child
						 * clears the flag */
	char arg[VG_OUTFILES_MAX][4200];	/* "fd[N]:PATH-without-/" */
};

/* The terminals a dump takes as external, by CRIU id, each once. */
struct vg_outfiles_ttys {
	int n;
	char id[VG_OUTFILES_MAX][VG_TTY_ID_MAX];
};

/* Note pid's regular files open for writing in DIR/outfiles (the process
 * is stopped); with ttys, its terminals too, their ids in *ttys for the
 * dump's `--external` (NULL: a shell job's, which CRIU takes itself). A
 * process with none writes an empty file. */
int vg_outfiles_save(pid_t pid, const char *dir, struct vg_outfiles_ttys *ttys,
		     struct vg_err *e);

/* Descriptors for DIR/outfiles: from process `from` (still alive, the one
 * being replaced; 0 = none) where it has the same file open at the same
 * descriptor number, else opened by path. A file that is gone is left to
 * CRIU, which says so. An image without DIR/outfiles gives none. */
int vg_outfiles_open(const char *dir, pid_t from, struct vg_outfiles *of,
		     struct vg_err *e);
void vg_outfiles_close(struct vg_outfiles *of);

#endif
