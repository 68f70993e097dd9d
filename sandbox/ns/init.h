// Shared between init.c and the Go side (proto.go keeps the same numbers).
#ifndef OJ_INIT_H
#define OJ_INIT_H

#define OJ_MAGIC_HELLO 0x314a4f48u  /* "HOJ1" */
#define OJ_MAGIC_RUN 0x314a4f52u    /* "ROJ1" */
#define OJ_MAGIC_RESULT 0x314a4f53u /* "SOJ1" */

#define OJ_FLAG_WORKTREE 1u
#define OJ_FLAG_EXTRAS 2u

/* Where the two layers of a host-given work dir are attached (mode 0700, root): the
   read-only lower (the host directory) and the upper (a fresh tmpfs made by the host),
   whose OJ_UPPER_DATA directory receives what the run writes in /w. */
#define OJ_LAYERS "/.oj"
#define OJ_UPPER_DATA "data"

/* rlimits in this order: stack, fsize, nofile, cpu (seconds), core. 0 = unchanged
   (core: 0 = no core dumps), UINT64_MAX = unlimited. */
#define OJ_NRLIM 5

void oj_init_main(void);

/* Scratch file systems kept across runs (scratch_linux.c): 0 is /tmp, 1 is /dev/shm.
   oj_scratch_ready mounts one with this size unless it is mounted with it already;
   oj_scratch_reset empties them after a run (replacing one that cannot be emptied). */
#define OJ_NSCRATCH 2
int oj_scratch_ready(int i, unsigned long long size);
const char *oj_scratch_path(int i);
void oj_scratch_reset(void);

#endif
