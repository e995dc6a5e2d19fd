// SPDX-License-Identifier: GPL-2.0
/*
 * Planted bugs for the test suite's log check, on the debug kernel only.
 *
 * LKDTM provokes WARN_ON(), KASAN, list corruption, refcount and array
 * bounds reports, but not the other things the log check must catch. Each
 * file in /sys/kernel/debug/fserr-planted/ provokes one of them when
 * written to; tests/scenarios/planted-bugs.sh writes each and the runner
 * must report each in the kernel log:
 *   leak        kmalloc() objects that nothing points to (kmemleak)
 *   sysfs_dup   a sysfs file created twice ("cannot create duplicate filename")
 *   kobject_dup a kobject added twice under one name (kobject_add fails)
 *   call_trace  a bare dump_stack(), as printed by code that warns by hand
 *   shift       a shift past the width of its type (UBSAN shift)
 *   lock_order  two mutexes taken A then B, later B then A (lockdep's
 *               "possible circular locking dependency"; no deadlock
 *               happens, and lockdep is off for the rest of the boot)
 *   atomic_sleep might_sleep() under a spinlock ("sleeping function
 *               called from invalid context", DEBUG_ATOMIC_SLEEP)
 *   hung        a kernel thread waits uninterruptibly, past the debug
 *               kernel's hung-task timeout (10 s), until hung_end is
 *               written (right after the first report: the detector
 *               repeats it every 10 s while the thread waits)
 * Each of these reports and goes on; none ends the guest.
 * The module is never loaded outside that scenario.
 */
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/kobject.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/printk.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/sysfs.h>

static struct dentry *dir;
static struct kobject *kobj;

static ssize_t planted_show(struct kobject *k, struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "planted\n");
}

static struct kobj_attribute planted_attr = __ATTR(planted, 0444, planted_show, NULL);

static void plant_leak(void)
{
	void * volatile p;
	int i;

	/*
	 * Eight objects, so that one survives in no stale register or slot.
	 * Their sizes are over KMALLOC_MAX_CACHE_SIZE, where kmemleak records
	 * the size asked for (12345 to 12352), which no real leak has.
	 */
	for (i = 0; i < 8; i++) {
		p = kmalloc(12345 + i, GFP_KERNEL);
		if (p)
			memset(p, 0x5a, 64);
		p = NULL;
	}
	pr_info("fserr-planted: leaked 8 objects\n");
}

static void plant_sysfs_dup(void)
{
	if (!kobj)
		return;
	if (!sysfs_create_file(kobj, &planted_attr.attr) &&
	    !sysfs_create_file(kobj, &planted_attr.attr))
		pr_info("fserr-planted: the second file was created\n");
}

static void plant_kobject_dup(void)
{
	struct kobject *second = kobject_create_and_add("fserr-planted", kernel_kobj);

	/* kobject_create_and_add() puts the kobject when adding fails */
	if (second) {
		pr_info("fserr-planted: the second kobject was added\n");
		kobject_put(second);
	}
}

static void plant_shift(void)
{
	volatile unsigned int bits = 40;
	unsigned int one = 1;

	pr_info("fserr-planted: 1 << %u = %u\n", bits, one << bits);
}

static DEFINE_MUTEX(planted_a);
static DEFINE_MUTEX(planted_b);

static void plant_lock_order(void)
{
	mutex_lock(&planted_a);
	mutex_lock(&planted_b);
	mutex_unlock(&planted_b);
	mutex_unlock(&planted_a);

	mutex_lock(&planted_b);
	mutex_lock(&planted_a);
	mutex_unlock(&planted_a);
	mutex_unlock(&planted_b);
}

static void plant_atomic_sleep(void)
{
	static DEFINE_SPINLOCK(lock);

	spin_lock(&lock);
	might_sleep();
	spin_unlock(&lock);
}

static DECLARE_COMPLETION(hung_end);

static int planted_hung(void *unused)
{
	/* TASK_UNINTERRUPTIBLE, not killable: what the detector looks for */
	wait_for_completion(&hung_end);
	return 0;
}

static void plant_hung(void)
{
	struct task_struct *t = kthread_run(planted_hung, NULL, "fserr-hung");

	if (IS_ERR(t))
		pr_info("fserr-planted: no thread: %ld\n", PTR_ERR(t));
}

static ssize_t plant(struct file *file, const char __user *buf, size_t len, loff_t *pos)
{
	const char *what = file->f_path.dentry->d_name.name;

	pr_info("fserr-planted: planting %s\n", what);
	if (!strcmp(what, "leak"))
		plant_leak();
	else if (!strcmp(what, "sysfs_dup"))
		plant_sysfs_dup();
	else if (!strcmp(what, "kobject_dup"))
		plant_kobject_dup();
	else if (!strcmp(what, "call_trace"))
		dump_stack();
	else if (!strcmp(what, "shift"))
		plant_shift();
	else if (!strcmp(what, "lock_order"))
		plant_lock_order();
	else if (!strcmp(what, "atomic_sleep"))
		plant_atomic_sleep();
	else if (!strcmp(what, "hung"))
		plant_hung();
	else if (!strcmp(what, "hung_end"))
		complete(&hung_end);
	return len;
}

static const struct file_operations plant_fops = {
	.owner = THIS_MODULE,
	.write = plant,
	.llseek = noop_llseek,
};

static int __init planted_init(void)
{
	static const char * const names[] = {
		"leak", "sysfs_dup", "kobject_dup", "call_trace", "shift",
		"lock_order", "atomic_sleep", "hung", "hung_end",
	};
	int i;

	kobj = kobject_create_and_add("fserr-planted", kernel_kobj);
	dir = debugfs_create_dir("fserr-planted", NULL);
	for (i = 0; i < ARRAY_SIZE(names); i++)
		debugfs_create_file(names[i], 0200, dir, NULL, &plant_fops);
	return 0;
}

static void __exit planted_exit(void)
{
	debugfs_remove(dir);
	kobject_put(kobj);
}

module_init(planted_init);
module_exit(planted_exit);
MODULE_DESCRIPTION("Planted bugs for the fserr test suite's log check");
MODULE_LICENSE("GPL");
