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
 * The module is never loaded outside that scenario.
 */
#include <linux/debugfs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/printk.h>
#include <linux/slab.h>
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
