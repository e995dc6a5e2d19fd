// SPDX-License-Identifier: GPL-2.0
/*
 * fserrd's policies exec and remount-ro (log is the line the main loop
 * writes for every fault; repair is repair.c), and what they and the
 * repair share: running a program, mounting. See fserrd.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fserrd.h"

#define MAJMIN(dev) major(dev), minor(dev)

/* Why a program ended, as text. */
void fserrd_describe_status(int status, bool timed_out, char *buf, size_t size)
{
	if (timed_out)
		snprintf(buf, size, "killed after the timeout");
	else if (WIFEXITED(status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, size, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, size, "status %#x", status);
}

/* The environment every program gets besides its own FSERR_* variables */
static char *const base_env[] = { "PATH=/usr/sbin:/usr/bin:/sbin:/bin", NULL };

/* What the child of fserrd_run() is to do; @err is its errno if it fails */
struct child {
	char *const *argv;
	char *const *envp;
	int keep_fd;
	bool no_caps;
	int err;
};

/*
 * The child's side of fserrd_run(), between clone() and execve(). It runs
 * in fserrd's memory (CLONE_VM | CLONE_VFORK, as posix_spawn() does), with
 * fserrd stopped until it execs or exits: only system calls, and its
 * errno goes back through @c. (With fork() instead, at 39d29f2, the
 * child in the arm64 guest stayed running in user space for as long as
 * it was watched, 8 s, its descriptors untouched: it never reached its
 * first system call. posix_spawn()'s way works there.)
 */
static int run_child(void *arg)
{
	struct child *c = arg;
	sigset_t none;
	int fd, cap;

	sigemptyset(&none);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigprocmask(SIG_SETMASK, &none, NULL);
	setpgid(0, 0);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (fd < 0 || dup2(fd, 0) < 0 || dup2(2, 1) < 0)
		goto fail;
	if (c->keep_fd >= 0 &&
	    (c->keep_fd == 3 ? fcntl(3, F_SETFD, 0) : dup2(c->keep_fd, 3)) < 0)
		goto fail;
	/* what fserrd inherited from its parent is not the program's */
	if (close_range(c->keep_fd >= 0 ? 4 : 3, ~0U, 0))
		goto fail;
	/*
	 * fsck parses a medium a user may have crafted, and runs as uid 0:
	 * in a mount namespace of its own where every mount is read-only,
	 * a bug in it cannot write a file (root owns /etc) or mount anything
	 * the host sees. It writes the device through descriptor 3, which a
	 * read-only mount does not stop.
	 */
	if (c->no_caps &&
	    (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) ||
	     mount_setattr(AT_FDCWD, "/", AT_RECURSIVE,
			   &(struct mount_attr){ .attr_set = MOUNT_ATTR_RDONLY },
			   sizeof(struct mount_attr))))
		goto fail;
	/*
	 * fsck needs no capability: it checks the device it was given as
	 * descriptor 3. With the bounding set empty, root's execve() grants
	 * none but the inheritable ones, which go too, with the ambient ones.
	 */
	for (cap = 0; c->no_caps && cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			goto fail;
	if (c->no_caps) {
		struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct data[2];

		if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
			goto fail;
		if (syscall(SYS_capget, &head, data))
			goto fail;
		data[0].inheritable = data[1].inheritable = 0;
		if (syscall(SYS_capset, &head, data))
			goto fail;
	}
	/* no set-user-ID or file-capability gain in anything it runs */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;
	execve(c->argv[0], c->argv, c->envp);
fail:
	c->err = errno ? errno : EINVAL;
	return 127;
}

/*
 * Run @argv (an absolute path) with @env added to a minimal environment
 * (base_env: fserrd's own is not the program's), stdin from /dev/null,
 * stdout to our stderr (the log), @keep_fd (if >= 0) as descriptor 3 and
 * no other descriptor, in a process group of its own, with default signal
 * handling and no new privileges; with FSERRD_RUN_NO_CAPS, without any
 * capability, in a mount namespace of its own with every mount read-only.
 * @timeout seconds, 0 for none; a program that overruns is
 * killed with its process group. Returns 0 with @status filled, or -errno
 * if it could not be started.
 */
int fserrd_run(char *const argv[], char *const env[], int keep_fd, unsigned int flags,
	       unsigned int timeout, int *status, bool *timed_out)
{
	struct timespec start, now, nap = { 0, 20 * 1000 * 1000 };
	size_t n_base = 0, n_add = 0, i, stack_size = 256 * 1024;
	struct child c = { .keep_fd = keep_fd, .no_caps = flags & FSERRD_RUN_NO_CAPS };
	char **envp, *stack;
	pid_t pid, got;

	*timed_out = false;
	while (base_env[n_base])
		n_base++;
	while (env && env[n_add])
		n_add++;
	envp = calloc(n_base + n_add + 1, sizeof(*envp));
	stack = malloc(stack_size);
	if (!envp || !stack) {
		free(envp);
		free(stack);
		return -ENOMEM;
	}
	for (i = 0; i < n_add; i++)
		envp[i] = env[i];
	for (i = 0; i < n_base; i++)
		envp[n_add + i] = base_env[i];
	c.argv = argv;
	c.envp = envp;
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* (fserrd waits here until the child has exec'd or exited) */
	pid = clone(run_child, stack + stack_size, CLONE_VM | CLONE_VFORK | SIGCHLD, &c);
	if (pid < 0)
		c.err = errno;
	free(envp);
	free(stack);
	if (pid < 0)
		return -c.err;
	if (c.err) {
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
		return -c.err;
	}
	for (;;) {
		got = waitpid(pid, status, timeout ? WNOHANG : 0);
		if (got == pid)
			return 0;
		if (got < 0 && errno != EINTR)
			return -errno;
		if (!timeout)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= (time_t)timeout) {
			kill(-pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			*timed_out = true;
			return 0;
		}
		nanosleep(&nap, NULL);
	}
}

static void act_exec(struct fserrd *d, const struct fserr_action *a,
		     const struct fserrd_fault *f)
{
	char env[13][PATH_MAX + 64], *envp[14], how[64];
	bool timed_out;
	int status, err, n = 0;

#define ENV(fmt, ...) snprintf(env[n], sizeof(env[n]), fmt, __VA_ARGS__), envp[n] = env[n], n++
	ENV("FSERR_EVENT=%s", "fault");
	ENV("FSERR_FSTYPE=%s", f->fstype);
	ENV("FSERR_DEVICE=%s", f->source);
	ENV("FSERR_DEV=%u:%u", MAJMIN(f->fs.dev));
	ENV("FSERR_MOUNTPOINTS=%s", f->mountpoints_nl);
	ENV("FSERR_SYSFS=%s", f->fs.dir);
	ENV("FSERR_ERROR_COUNT=%llu", f->fs.error_count);
	ENV("FSERR_FAULT_COUNT=%llu", f->fs.fault_count);
	ENV("FSERR_FIRST_ERRNO=%d", f->fs.first_errno);
	ENV("FSERR_LAST_ERRNO=%d", f->fs.last_errno);
	ENV("FSERR_FIRST_ERROR_TIME=%lld", f->fs.first_error_time);
	ENV("FSERR_LAST_ERROR_TIME=%lld", f->fs.last_error_time);
	if (f->fs.io_error_count >= 0)
		ENV("FSERR_IO_ERROR_COUNT=%lld", f->fs.io_error_count);
#undef ENV
	envp[n] = NULL;
	err = fserrd_run(a->argv, envp, -1, 0, d->cfg.exec_timeout, &status, &timed_out);
	if (err) {
		fserrd_log("exec-failed", "program", a->argv[0], "error", strerror(-err), NULL);
		return;
	}
	fserrd_describe_status(status, timed_out, how, sizeof(how));
	fserrd_log("exec-done", "program", a->argv[0], "result", how, NULL);
}

/* Mount with libmount; 0 or -1 with libmount's message in @msg. */
int fserrd_do_mount(const char *source, const char *target, const char *fstype,
		    const char *options, int optsmode, char *msg, size_t size)
{
	struct libmnt_context *cxt = mnt_new_context();
	int rc;

	if (!cxt) {
		snprintf(msg, size, "out of memory");
		return -1;
	}
	mnt_context_disable_helpers(cxt, 1);
	mnt_context_set_optsmode(cxt, optsmode);
	if ((source && mnt_context_set_source(cxt, source)) ||
	    mnt_context_set_target(cxt, target) ||
	    (fstype && mnt_context_set_fstype(cxt, fstype)) ||
	    mnt_context_set_options(cxt, options)) {
		snprintf(msg, size, "cannot set up the mount");
		mnt_free_context(cxt);
		return -1;
	}
	rc = mnt_context_mount(cxt);
	if (rc || mnt_context_get_status(cxt) != 1) {
		int err = mnt_context_syscall_called(cxt) ?
			  mnt_context_get_syscall_errno(cxt) : 0;

		mnt_context_get_excode(cxt, rc, msg, size);
		if (!*msg)
			snprintf(msg, size, "mount failed (%d)", rc);
		mnt_free_context(cxt);
		return err > 0 ? -err : -1;
	}
	mnt_free_context(cxt);
	return 0;
}

int fserrd_open_mount(const char *target, int mnt_id, char *why, size_t size)
{
	struct statx stx;
	int fd;

	fd = open(target, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, size, "cannot open %s: %s", target, strerror(errno));
		return -1;
	}
	/*
	 * (AT_STATX_DONT_SYNC: the mount ID is the VFS's; a FUSE server
	 * mounted over @target is never asked, so it cannot hang fserrd)
	 */
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW | AT_STATX_DONT_SYNC,
		  STATX_MNT_ID, &stx)) {
		snprintf(why, size, "cannot read the mount ID of %s: %s", target, strerror(errno));
		close(fd);
		return -1;
	}
	if (!(stx.stx_mask & STATX_MNT_ID)) {
		snprintf(why, size, "the kernel does not tell the mount ID of %s", target);
		close(fd);
		return -1;
	}
	if (mnt_id <= 0 || stx.stx_mnt_id != (unsigned long long)mnt_id) {
		snprintf(why, size, "%s now shows mount %llu, not the faulted filesystem's mount %d "
			 "(something was mounted over it, or it was unmounted)",
			 target, (unsigned long long)stx.stx_mnt_id, mnt_id);
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * Make the filesystem behind the mount descriptor @fd read-only: its
 * superblock (fspick(), "ro", reconfigure: what "mount -o remount,ro"
 * does to it, with no other option changed) and that mount. Nothing is
 * looked up by path, and no per-mount flag but the read-only one changes
 * (a plain MS_REMOUNT would reset nosuid, nodev, noexec, nosymfollow).
 * 0, or -1 with the reason in @msg.
 */
static int make_ro(int fd, char *msg, size_t size)
{
	struct mount_attr attr = { .attr_set = MOUNT_ATTR_RDONLY };
	int fs = fspick(fd, "", FSPICK_EMPTY_PATH | FSPICK_CLOEXEC | FSPICK_NO_AUTOMOUNT);

	if (fs < 0) {
		snprintf(msg, size, "fspick: %s", strerror(errno));
		return -1;
	}
	if (fsconfig(fs, FSCONFIG_SET_FLAG, "ro", NULL, 0) ||
	    fsconfig(fs, FSCONFIG_CMD_RECONFIGURE, NULL, NULL, 0)) {
		snprintf(msg, size, "reconfigure read-only: %s", strerror(errno));
		close(fs);
		return -1;
	}
	close(fs);
	if (mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof(attr))) {
		snprintf(msg, size, "mount_setattr: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The mounts of @dev in @tb, those of the filesystem's root first */
static size_t mounts_root_first(struct libmnt_table *tb, dev_t dev, struct libmnt_fs **out,
				size_t max)
{
	struct libmnt_iter *it = mnt_new_iter(MNT_ITER_FORWARD);
	struct libmnt_fs *m;
	size_t n = 0;
	int pass;

	for (pass = 0; it && pass < 2; pass++) {
		mnt_reset_iter(it, MNT_ITER_FORWARD);
		while (n < max && fserr_mounts_next(tb, it, dev, &m) == 0) {
			const char *root = mnt_fs_get_root(m);
			bool is_root = root && !strcmp(root, "/");

			if (mnt_fs_get_target(m) && is_root == !pass)
				out[n++] = m;
		}
	}
	mnt_free_iter(it);
	return n;
}

int fserrd_remount_ro(const struct fserrd_fault *f, const char *why)
{
	struct libmnt_fs *mounts[64];
	struct libmnt_table *tb;
	char msg[PATH_MAX + 256], first[PATH_MAX + 256] = "";
	const char *target = NULL;
	size_t n, i;
	int fd, ret = -1;

	/*
	 * The mount table as it is now (a repair that gave up has mounted
	 * everything again, with new mount IDs), and every mount of the
	 * device, the root's first: one that something was mounted over is
	 * refused, the next one tried.
	 */
	tb = fserr_mounts_load(NULL);
	if (!tb) {
		fserrd_log("remount-ro-failed", "sysfs", f->fs.dir, "error", strerror(errno),
			   "why", why, NULL);
		return -1;
	}
	n = mounts_root_first(tb, f->fs.dev, mounts, sizeof(mounts) / sizeof(mounts[0]));
	if (!n) {
		fserrd_log("remount-ro-impossible", "sysfs", f->fs.dir,
			   "why", "not mounted in this mount namespace", NULL);
		mnt_unref_table(tb);
		return 1;
	}
	for (i = 0; i < n; i++) {
		target = mnt_fs_get_target(mounts[i]);
		fd = fserrd_open_mount(target, mnt_fs_get_id(mounts[i]), msg, sizeof(msg));
		if (fd < 0) {
			if (!*first)
				snprintf(first, sizeof(first), "%s", msg);
			continue;
		}
		ret = make_ro(fd, msg, sizeof(msg));
		close(fd);
		if (ret)
			fserrd_log("remount-ro-failed", "mountpoint", target, "error", msg,
				   "why", why, NULL);
		else
			fserrd_log("remounted-ro", "mountpoint", target, "why", why, NULL);
		mnt_unref_table(tb);
		return ret;
	}
	fserrd_log("remount-ro-refused", "mountpoint", mnt_fs_get_target(mounts[0]),
		   "error", first, "why", why, NULL);
	mnt_unref_table(tb);
	return -1;
}

int fserrd_act(struct fserrd *d, const struct fserr_action *a,
	       const struct fserrd_fault *f)
{
	switch (a->policy) {
	case FSERR_LOG:
		break;
	case FSERR_EXEC:
		act_exec(d, a, f);
		break;
	case FSERR_REMOUNT_RO:
		return fserrd_remount_ro(f, "policy remount-ro") < 0 ? -1 : 0;
	case FSERR_REPAIR:	/* fserrd_repair() */
		break;
	}
	return 0;
}
