/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small volumes on loop devices and their fserr attributes, for the guest
 * test programs that mount many of them (fuzz_walk, fserr_stress). Errors
 * end the program with a TAP "Bail out!".
 */
#ifndef FSERR_TEST_VOLUMES_H
#define FSERR_TEST_VOLUMES_H

#include <errno.h>
#include <fcntl.h>
#include <linux/loop.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static void __attribute__((noreturn, format(printf, 1, 2))) bail(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	printf("Bail out! ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf(": %s\n", strerror(err));
	exit(1);
}

/* Copy @src to @dst, leaving the blocks of zeros as holes. */
static void copy_image(const char *src, const char *dst)
{
	static char buf[64 << 10], zero[4096];
	ssize_t n, i;
	off_t off = 0;
	int in, out;

	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		bail("open %s", src);
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0)
		bail("create %s", dst);
	while ((n = read(in, buf, sizeof(buf))) > 0) {
		for (i = 0; i < n; i += sizeof(zero)) {
			size_t len = n - i < (ssize_t)sizeof(zero) ? (size_t)(n - i) : sizeof(zero);

			if (memcmp(buf + i, zero, len) &&
			    pwrite(out, buf + i, len, off + i) != (ssize_t)len)
				bail("write %s", dst);
		}
		off += n;
	}
	if (n < 0 || ftruncate(out, off))
		bail("copy %s to %s", src, dst);
	close(in);
	close(out);
}

/* Attach @file to a free loop device; its number goes to @nr. */
static void loop_attach(const char *file, int *nr)
{
	struct loop_config cfg = { 0 };
	char dev[32];
	int ctl, fd, img;

	ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	if (ctl < 0)
		bail("open /dev/loop-control");
	*nr = ioctl(ctl, LOOP_CTL_GET_FREE);
	if (*nr < 0)
		bail("LOOP_CTL_GET_FREE");
	close(ctl);
	snprintf(dev, sizeof(dev), "/dev/loop%d", *nr);
	img = open(file, O_RDWR | O_CLOEXEC);
	if (img < 0)
		bail("open %s", file);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		bail("open %s", dev);
	cfg.fd = img;
	if (ioctl(fd, LOOP_CONFIGURE, &cfg))
		bail("LOOP_CONFIGURE %s", dev);
	close(fd);
	close(img);
}

/* Detach loop device @nr; -1 with errno if it is still in use. */
static int loop_detach(int nr)
{
	char dev[32];
	int fd, ret;

	snprintf(dev, sizeof(dev), "/dev/loop%d", nr);
	fd = open(dev, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = ioctl(fd, LOOP_CLR_FD);
	close(fd);
	return ret;
}

/*
 * One fserr attribute, read through the directory handle @dfd, so that
 * several reads come from one superblock. -1 if it cannot be read (the
 * directory went away), -2 if it is not a number and a newline (a bug).
 */
static long sysfs_attr_at(int dfd, const char *name)
{
	char buf[32], *end;
	long v;
	int fd, n;

	fd = openat(dfd, name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	v = strtol(buf, &end, 10);
	if (end == buf || strcmp(end, "\n"))
		return -2;
	return v;
}

/* /sys/fs/FAMILY/ID/NAME, as sysfs_attr_at() reads it. */
static long sysfs_attr(const char *family, const char *id, const char *name)
{
	char path[128];
	long v;
	int dfd;

	snprintf(path, sizeof(path), "/sys/fs/%s/%s", family, id);
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -1;
	v = sysfs_attr_at(dfd, name);
	close(dfd);
	return v;
}

#endif
