// Scratch file systems of a slot: /tmp and /dev/shm. Each is a tmpfs mounted once and
// emptied after every run instead of being unmounted and mounted again: an unmount
// waits for an RCU grace period, which was the largest single cost of a run's
// teardown. The runs cannot change the mount roots (root-owned, mode 1777, sticky),
// so an empty root is as fresh as a new mount. Whatever cannot be emptied within
// bounds (too deep, too many entries, an error) gets the old way: the tmpfs is
// unmounted and the next run mounts a new one.

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "init.h"

// A tree deeper or larger than this is not walked: the tmpfs is replaced instead.
#define SCRATCH_MAX_DEPTH 64
#define SCRATCH_MAX_ENTRIES 20000

struct scratch {
	const char *path;
	uint64_t size; // the size it was mounted with
	int fd;        // its root, open while it is mounted; -1 when it is not
};

static struct scratch scratches[OJ_NSCRATCH] = {{"/tmp", 0, -1}, {"/dev/shm", 0, -1}};

static void drop(struct scratch *s) {
	if (s->fd < 0) return;
	close(s->fd);
	s->fd = -1;
	if (umount2(s->path, 0) < 0) umount2(s->path, MNT_DETACH);
}

int oj_scratch_ready(int i, unsigned long long size) {
	struct scratch *s = &scratches[i];
	if (s->fd >= 0 && s->size == size) return 0;
	drop(s);
	char opt[128];
	snprintf(opt, sizeof opt, "size=%llu,mode=1777", (unsigned long long)size);
	if (mount("tmpfs", s->path, "tmpfs", MS_NOSUID | MS_NODEV, opt) < 0) return -1;
	s->fd = open(s->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->fd < 0) {
		int e = errno;
		umount2(s->path, MNT_DETACH);
		errno = e;
		return -1;
	}
	s->size = size;
	return 0;
}

const char *oj_scratch_path(int i) { return scratches[i].path; }

// empty removes everything below the directory dirfd, never following a symlink (every
// name is resolved relative to its parent's descriptor, directories are opened with
// O_NOFOLLOW). It returns -1 when the tree is over the bounds or something could not
// be removed. It opens its own description of the directory, so dirfd's offset is not
// shared.
static int empty(int dirfd, int depth, long *budget) {
	if (depth > SCRATCH_MAX_DEPTH) return -1;
	int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) return -1;
	DIR *d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	int rc = 0;
	// Removing entries while reading the directory is safe on tmpfs, but a second pass
	// that finds nothing is the proof that it is empty.
	for (int removed = 1; removed && rc == 0;) {
		removed = 0;
		rewinddir(d);
		struct dirent *e;
		while (rc == 0 && (e = readdir(d)) != NULL) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
			if (--*budget < 0) {
				rc = -1;
				break;
			}
			if (unlinkat(fd, e->d_name, 0) == 0) {
				removed = 1;
				continue;
			}
			if (errno != EISDIR) {
				rc = -1;
				break;
			}
			int sub = openat(fd, e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub < 0 || empty(sub, depth + 1, budget) < 0 || unlinkat(fd, e->d_name, AT_REMOVEDIR) < 0)
				rc = -1;
			if (sub >= 0) close(sub);
			removed = 1;
		}
	}
	closedir(d);
	return rc;
}

void oj_scratch_reset(void) {
	for (int i = 0; i < OJ_NSCRATCH; i++) {
		struct scratch *s = &scratches[i];
		long budget = SCRATCH_MAX_ENTRIES;
		if (s->fd >= 0 && empty(s->fd, 0, &budget) < 0) drop(s);
	}
}
