// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifdef HAVE_LIBSYSTEMD
#include <systemd/sd-device.h>
#include <systemd/sd-event.h>
#endif

#include "monitor.h"

#define RCVBUF (2 * 1024 * 1024)
/* per fserr_monitor_read(): a flood must not starve the other channels */
#define READ_MAX 256

struct fserr_monitor {
	enum fserr_monitor_source src;
	int fd;			/* kernel: the socket; udev: sd_event's epoll */
	int sock;		/* the netlink socket (udev: the library's) */
	unsigned int drops;	/* its drop count when last looked at */
#ifdef HAVE_LIBSYSTEMD
	sd_event *event;
	sd_device_monitor *dev_mon;
	/* for the handler, during fserr_monitor_read() */
	fserr_monitor_cb *cb;
	void *data;
	struct fserr_monitor_result *res;
#endif
};

int fserr_monitor_source_parse(const char *name, enum fserr_monitor_source *src)
{
	if (!strcmp(name, "auto"))
		*src = FSERR_MONITOR_AUTO;
	else if (!strcmp(name, "kernel"))
		*src = FSERR_MONITOR_KERNEL;
	else if (!strcmp(name, "udev"))
		*src = FSERR_MONITOR_UDEV;
	else
		return -EINVAL;
	return 0;
}

/*
 * The socket's drop count (SO_MEMINFO): the kernel counts every message
 * it could not queue, where ENOBUFS comes once per episode (netlink sets
 * it when the socket becomes congested, and drops everything after it
 * until the queue has been read empty), and the library swallows even
 * that one. A count that grew is a loss. -1 when it cannot be read.
 */
static long long drop_count(int sock)
{
	__u32 mem[SK_MEMINFO_VARS];
	socklen_t len = sizeof(mem);

	if (getsockopt(sock, SOL_SOCKET, SO_MEMINFO, mem, &len) ||
	    len < (SK_MEMINFO_DROPS + 1) * sizeof(mem[0]))
		return -1;
	return mem[SK_MEMINFO_DROPS];
}

static bool dropped(struct fserr_monitor *m)
{
	long long d = drop_count(m->sock);

	if (d < 0 || (unsigned int)d == m->drops)
		return false;
	m->drops = d;
	return true;
}

static void set_rcvbuf(int fd)
{
	int size = RCVBUF;

	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
}

static int open_kernel(struct fserr_monitor *m)
{
	struct sockaddr_nl addr = { .nl_family = AF_NETLINK, .nl_groups = 1 };

	m->fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK,
		       NETLINK_KOBJECT_UEVENT);
	if (m->fd < 0)
		return -errno;
	m->sock = m->fd;
	set_rcvbuf(m->fd);
	if (bind(m->fd, (struct sockaddr *)&addr, sizeof(addr)))
		return -errno;
	return 0;
}

static void read_kernel(struct fserr_monitor *m, fserr_monitor_cb *cb, void *data,
			struct fserr_monitor_result *res)
{
	char buf[FSERR_UEVENT_MAX + 1];
	struct sockaddr_nl from;
	struct fserr_uevent ev;
	socklen_t fromlen;
	ssize_t n;
	int i;

	for (i = 0; i < READ_MAX; i++) {
		memset(&from, 0, sizeof(from));
		fromlen = sizeof(from);
		n = recvfrom(m->fd, buf, sizeof(buf) - 1, MSG_DONTWAIT | MSG_TRUNC,
			     (struct sockaddr *)&from, &fromlen);
		if (n < 0 && errno == ENOBUFS) {
			res->lost = true;
			continue;
		}
		if (n < 0)
			break;
		/*
		 * Port id 0 is the kernel, or a process with CAP_SYS_ADMIN
		 * over the network namespace writing through the kernel's
		 * uevent socket (/sys/.../uevent, which sends what the
		 * kernel would); a process with CAP_NET_ADMIN can send to
		 * the group from its own port. Believe only port id 0.
		 */
		if (fromlen != sizeof(from) || from.nl_family != AF_NETLINK ||
		    from.nl_pid != 0) {
			res->ignored++;
			res->ignored_port = from.nl_pid;
			continue;
		}
		/* (longer than the kernel's limit: cut by recvfrom, not ours) */
		if (n > 0 && (size_t)n <= sizeof(buf) - 1 &&
		    fserr_uevent_parse(buf, n, &ev) == 0) {
			res->faults++;
			if (cb)
				cb(&ev, data);
		}
	}
}

#ifdef HAVE_LIBSYSTEMD
static bool udev_runs(void)
{
	return access("/run/udev/control", F_OK) == 0;
}

static const char *device_property(const char *key, void *data)
{
	const char *value;

	return sd_device_get_property_value(data, key, &value) < 0 ? NULL : value;
}

static int on_device(sd_device_monitor *mon, sd_device *dev, void *userdata)
{
	struct fserr_monitor *m = userdata;
	struct fserr_uevent ev;

	(void)mon;
	if (m->res && fserr_uevent_parse_props(device_property, dev, &ev) == 0) {
		m->res->faults++;
		if (m->cb)
			m->cb(&ev, m->data);
	}
	return 0;
}

static int open_udev(struct fserr_monitor *m)
{
	int r;

	/* sd_device_monitor_new() would listen to nothing, and not say so */
	if (!udev_runs())
		return -ENOENT;
	r = sd_event_new(&m->event);
	if (r < 0)
		return r;
	r = sd_device_monitor_new(&m->dev_mon);
	if (r < 0)
		return r;
	/*
	 * The library sets SO_RCVBUF (up to net.core.rmem_max), then tries
	 * SO_RCVBUFFORCE, which needs CAP_NET_ADMIN (fserrd's unit has it
	 * not) and fails with EPERM: the buffer rmem_max allows is kept.
	 */
	(void)sd_device_monitor_set_receive_buffer_size(m->dev_mon, RCVBUF);
	r = sd_device_monitor_filter_add_match_subsystem_devtype(m->dev_mon, "fserr", NULL);
	if (r < 0)
		return r;
	r = sd_device_monitor_attach_event(m->dev_mon, m->event);
	if (r < 0)
		return r;
	r = sd_device_monitor_start(m->dev_mon, on_device, m);
	if (r < 0)
		return r;
	m->sock = sd_event_source_get_io_fd(sd_device_monitor_get_event_source(m->dev_mon));
	if (m->sock < 0)
		return m->sock;
	m->fd = sd_event_get_fd(m->event);
	return m->fd < 0 ? m->fd : 0;
}

/*
 * The library reads one message per dispatch. Its handler takes an
 * overflow (ENOBUFS from recvmsg) as a message that did not come, and
 * its recvmsg also ends the socket's congestion once the queue is empty;
 * the loss is seen through the drop count (fserr_monitor_read()).
 */
static void read_udev(struct fserr_monitor *m, fserr_monitor_cb *cb, void *data,
		      struct fserr_monitor_result *res)
{
	int i, r = 0;

	m->cb = cb;
	m->data = data;
	m->res = res;
	for (i = 0; i < READ_MAX; i++) {
		r = sd_event_run(m->event, 0);
		if (r <= 0)
			break;
	}
	m->res = NULL;
	if (r < 0)
		res->error = -r;
}
#endif

int fserr_monitor_open(enum fserr_monitor_source src, struct fserr_monitor **ret)
{
	struct fserr_monitor *m;
	int r;

	*ret = NULL;
#ifdef HAVE_LIBSYSTEMD
	if (src == FSERR_MONITOR_AUTO)
		src = udev_runs() ? FSERR_MONITOR_UDEV : FSERR_MONITOR_KERNEL;
#else
	if (src == FSERR_MONITOR_AUTO)
		src = FSERR_MONITOR_KERNEL;
	if (src == FSERR_MONITOR_UDEV)
		return -EOPNOTSUPP;
#endif
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->src = src;
	m->fd = -1;
	m->sock = -1;
#ifdef HAVE_LIBSYSTEMD
	if (src == FSERR_MONITOR_UDEV)
		r = open_udev(m);
	else
#endif
		r = open_kernel(m);
	if (r < 0) {
		fserr_monitor_close(m);
		return r;
	}
	r = drop_count(m->sock);
	m->drops = r < 0 ? 0 : r;
	*ret = m;
	return 0;
}

int fserr_monitor_fd(const struct fserr_monitor *m)
{
	return m ? m->fd : -1;
}

const char *fserr_monitor_source_name(const struct fserr_monitor *m)
{
	return m->src == FSERR_MONITOR_UDEV ? "udev" : "kernel";
}

void fserr_monitor_read(struct fserr_monitor *m, fserr_monitor_cb *cb, void *data,
			struct fserr_monitor_result *res)
{
	memset(res, 0, sizeof(*res));
#ifdef HAVE_LIBSYSTEMD
	if (m->src == FSERR_MONITOR_UDEV)
		read_udev(m, cb, data, res);
	else
#endif
		read_kernel(m, cb, data, res);
	if (dropped(m))
		res->lost = true;
}

void fserr_monitor_close(struct fserr_monitor *m)
{
	if (!m)
		return;
#ifdef HAVE_LIBSYSTEMD
	if (m->src == FSERR_MONITOR_UDEV) {
		sd_device_monitor_unref(m->dev_mon);
		sd_event_unref(m->event);
		free(m);
		return;
	}
#endif
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}
