// SPDX-License-Identifier: GPL-2.0
/*
 * fserrd's policies exec and remount-ro (log is the line the main loop
 * writes for every fault; repair is repair.c), and what they and the
 * repair share: running a program, mounting. See fserrd.8.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
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

/*
 * The child's side of fserrd_run(), between fork() and execve(); only
 * async-signal-safe calls. An error goes to the parent through @report.
 */
static void run_child(char *const argv[], char *const envp[], int keep_fd, bool no_caps,
		      int report)
{
	sigset_t none;
	int fd, cap, err;

	/* above the descriptors set up below, and kept until execve() */
	fd = fcntl(report, F_DUPFD_CLOEXEC, 10);
	if (fd < 0)
		_exit(127);
	report = fd;
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
	if (keep_fd >= 0 && (keep_fd == 3 ? fcntl(3, F_SETFD, 0) : dup2(keep_fd, 3)) < 0)
		goto fail;
	/* what fserrd inherited from its parent is not the program's */
	fd = keep_fd >= 0 ? 4 : 3;
	if ((fd < report && close_range(fd, report - 1, 0)) || close_range(report + 1, ~0U, 0))
		goto fail;
	/*
	 * fsck needs no capability: it checks the device it was given as
	 * descriptor 3. With the bounding set empty, root's execve() grants
	 * none.
	 */
	for (cap = 0; no_caps && cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL)
			goto fail;
	/* no set-user-ID or file-capability gain in anything it runs */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		goto fail;
	execve(argv[0], argv, envp);
fail:
	err = errno;
	(void)!write(report, &err, sizeof(err));
	_exit(127);
}

/*
 * Run @argv (an absolute path) with @env added to a minimal environment
 * (base_env: fserrd's own is not the program's), stdin from /dev/null,
 * stdout to our stderr (the log), @keep_fd (if >= 0) as descriptor 3 and
 * no other descriptor, in a process group of its own, with default signal
 * handling and no new privileges; with FSERRD_RUN_NO_CAPS, without any
 * capability. @timeout seconds, 0 for none; a program that overruns is
 * killed with its process group. Returns 0 with @status filled, or -errno
 * if it could not be started.
 */
int fserrd_run(char *const argv[], char *const env[], int keep_fd, unsigned int flags,
	       unsigned int timeout, int *status, bool *timed_out)
{
	struct timespec start, now, nap = { 0, 20 * 1000 * 1000 };
	size_t n_base = 0, n_add = 0, i;
	int report[2], err = 0;
	pid_t pid, got;
	char **envp;
	ssize_t n;

	*timed_out = false;
	while (base_env[n_base])
		n_base++;
	while (env && env[n_add])
		n_add++;
	envp = calloc(n_base + n_add + 1, sizeof(*envp));
	if (!envp)
		return -ENOMEM;
	for (i = 0; i < n_add; i++)
		envp[i] = env[i];
	for (i = 0; i < n_base; i++)
		envp[n_add + i] = base_env[i];
	if (pipe2(report, O_CLOEXEC)) {
		err = -errno;
		free(envp);
		return err;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	pid = fork();
	if (pid == 0)
		run_child(argv, envp, keep_fd, flags & FSERRD_RUN_NO_CAPS, report[1]);
	if (pid < 0)
		err = -errno;
	else
		setpgid(pid, pid);	/* (also here: kill(-pid) may come first) */
	close(report[1]);
	free(envp);
	/* the child's errno if it failed before or at execve() */
	while (pid > 0 && (n = read(report[0], &err, sizeof(err))) < 0 && errno == EINTR)
		;
	close(report[0]);
	if (pid < 0)
		return err;
	if (n == sizeof(err)) {
		while (waitpid(pid, status, 0) < 0 && errno == EINTR)
			;
		return -err;
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
	if (statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &stx)) {
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
 * Remount the filesystem of mount @mnt_id at @target read-only; logs the
 * outcome. The remount goes through a descriptor of that very mount
 * (/proc/self/fd/N), so whatever is mounted on @target after the check
 * is never touched. The mount keeps its nosuid, nodev and noexec (a plain
 * MS_REMOUNT would clear them) and its atime flags (the kernel keeps
 * those when none is given); no filesystem options are passed, so the
 * filesystem keeps its own.
 */
static int remount_ro(const char *target, int mnt_id, const char *why)
{
	unsigned long flags = MS_REMOUNT | MS_RDONLY;
	char path[64], msg[PATH_MAX + 256];
	struct statvfs sv;
	int fd;

	fd = fserrd_open_mount(target, mnt_id, msg, sizeof(msg));
	if (fd < 0) {
		fserrd_log("remount-ro-refused", "mountpoint", target, "error", msg,
			   "why", why, NULL);
		return -1;
	}
	if (fstatvfs(fd, &sv)) {
		snprintf(msg, sizeof(msg), "statvfs: %s", strerror(errno));
		goto failed;
	}
	flags |= (sv.f_flag & ST_NOSUID ? MS_NOSUID : 0) | (sv.f_flag & ST_NODEV ? MS_NODEV : 0) |
		 (sv.f_flag & ST_NOEXEC ? MS_NOEXEC : 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (mount(NULL, path, NULL, flags, NULL)) {
		snprintf(msg, sizeof(msg), "%s", strerror(errno));
		goto failed;
	}
	close(fd);
	fserrd_log("remounted-ro", "mountpoint", target, "why", why, NULL);
	return 0;
failed:
	close(fd);
	fserrd_log("remount-ro-failed", "mountpoint", target, "error", msg, "why", why, NULL);
	return -1;
}

int fserrd_remount_ro(const struct fserrd_fault *f, const char *why)
{
	/* If there are only bind mounts of a subdirectory, any of them will do. */
	bool root = *f->first_mount;

	if (!root && !*f->any_mount) {
		fserrd_log("remount-ro-impossible", "sysfs", f->fs.dir,
			   "why", "not mounted in this mount namespace", NULL);
		return -1;
	}
	return remount_ro(root ? f->first_mount : f->any_mount,
			  root ? f->first_mount_id : f->any_mount_id, why);
}

void fserrd_act(struct fserrd *d, const struct fserr_action *a,
		const struct fserrd_fault *f)
{
	switch (a->policy) {
	case FSERR_LOG:
		break;
	case FSERR_EXEC:
		act_exec(d, a, f);
		break;
	case FSERR_REMOUNT_RO:
		fserrd_remount_ro(f, "policy remount-ro");
		break;
	case FSERR_REPAIR:	/* fserrd_repair() */
		break;
	}
}
