// SPDX-License-Identifier: GPL-2.0
/*
 * fscorrupt: make named, deterministic corruptions of FAT12/16/32, exFAT and ext2
 * images (or of one partition of an MBR-partitioned card image), so that a
 * kernel under test finds real errors through its normal code paths.
 *
 * Every change is printed; on any error nothing is written.  See
 * fscorrupt.1 or `fscorrupt --help`.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "fscorrupt";

static void die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* The volume: an image file, or one partition of it. */
struct vol {
	int fd;
	uint64_t base;		/* byte offset of the filesystem in the file */
	uint64_t size;		/* bytes */
	bool dry_run;
};

static void vol_read(const struct vol *v, uint64_t off, void *buf, size_t len)
{
	ssize_t n;

	if (off + len > v->size)
		die("corrupted image: read of %zu bytes at %#" PRIx64 " is past the end of the volume",
		    len, off);
	n = pread(v->fd, buf, len, v->base + off);
	if (n != (ssize_t)len)
		die("read at %#" PRIx64 ": %s", v->base + off,
		    n < 0 ? strerror(errno) : "short read");
}

static void vol_write(const struct vol *v, uint64_t off, const void *buf,
		      size_t len)
{
	ssize_t n;

	if (v->dry_run)
		return;
	n = pwrite(v->fd, buf, len, v->base + off);
	if (n != (ssize_t)len)
		die("write at %#" PRIx64 ": %s", v->base + off,
		    n < 0 ? strerror(errno) : "short write");
}

static uint16_t le16(const uint8_t *p) { return p[0] | p[1] << 8; }
static uint32_t le32(const uint8_t *p) { return le16(p) | (uint32_t)le16(p + 2) << 16; }
static void put_le16(uint8_t *p, uint16_t v) { p[0] = v; p[1] = v >> 8; }
static void put_le32(uint8_t *p, uint32_t v) { put_le16(p, v); put_le16(p + 2, v >> 16); }

/* Select partition @part (1-4) of an MBR image. */
static void vol_select_partition(struct vol *v, int part)
{
	uint8_t mbr[512];
	const uint8_t *e;

	if (part < 1 || part > 4)
		die("partition %d: only primary partitions 1-4 are supported", part);
	vol_read(v, 0, mbr, sizeof(mbr));
	if (mbr[510] != 0x55 || mbr[511] != 0xaa)
		die("no MBR partition table (no 55 aa signature)");
	e = mbr + 446 + 16 * (part - 1);
	if (e[4] == 0 || le32(e + 12) == 0)
		die("partition %d is empty", part);
	if ((uint64_t)(le32(e + 8) + (uint64_t)le32(e + 12)) * 512 > v->size)
		die("partition %d runs past the end of the image", part);
	v->base = (uint64_t)le32(e + 8) * 512;
	v->size = (uint64_t)le32(e + 12) * 512;
}

/* ---------------------------------------------------------------- FAT */

struct fat {
	struct vol *v;
	int bits;			/* 12, 16 or 32 */
	uint32_t bytes_per_sector;
	uint32_t cluster_bytes;
	uint64_t fat_off;		/* first FAT */
	uint32_t fat_bytes;		/* one FAT */
	uint32_t nr_fats;
	uint64_t root_off;		/* FAT12/16 fixed root directory */
	uint32_t root_entries;
	uint64_t data_off;
	uint32_t nr_clusters;
	uint32_t root_cluster;		/* FAT32 */
};

static bool fat_probe(struct vol *v, struct fat *f)
{
	uint8_t bs[512];
	uint32_t bps, spc, reserved, fatsz, totsec, rootsec, datasec;

	vol_read(v, 0, bs, sizeof(bs));
	bps = le16(bs + 11);
	spc = bs[13];
	reserved = le16(bs + 14);
	if (bs[510] != 0x55 || bs[511] != 0xaa)
		return false;
	if (bps < 512 || bps > 4096 || (bps & (bps - 1)) || !spc ||
	    (spc & (spc - 1)) || !reserved || !bs[16])
		return false;
	memset(f, 0, sizeof(*f));
	f->v = v;
	f->bytes_per_sector = bps;
	f->cluster_bytes = bps * spc;
	f->nr_fats = bs[16];
	f->root_entries = le16(bs + 17);
	totsec = le16(bs + 19) ? le16(bs + 19) : le32(bs + 32);
	fatsz = le16(bs + 22) ? le16(bs + 22) : le32(bs + 36);
	if (!fatsz || !totsec)
		return false;
	rootsec = (f->root_entries * 32 + bps - 1) / bps;
	f->fat_off = (uint64_t)reserved * bps;
	f->fat_bytes = fatsz * bps;
	f->root_off = f->fat_off + (uint64_t)f->nr_fats * f->fat_bytes;
	f->data_off = f->root_off + (uint64_t)rootsec * bps;
	if (reserved + f->nr_fats * fatsz + rootsec >= totsec)
		return false;
	datasec = totsec - (reserved + f->nr_fats * fatsz + rootsec);
	f->nr_clusters = datasec / spc;
	if (f->nr_clusters < 4085)
		f->bits = 12;
	else if (f->nr_clusters < 65525)
		f->bits = 16;
	else
		f->bits = 32;
	if (f->bits == 32)
		f->root_cluster = le32(bs + 44);
	return true;
}

/* Valid clusters are 2 .. max_cluster. */
static uint32_t fat_max_cluster(const struct fat *f)
{
	return f->nr_clusters + 1;
}

static uint32_t fat_eoc(const struct fat *f)
{
	return f->bits == 12 ? 0xfff : f->bits == 16 ? 0xffff : 0x0fffffff;
}

static uint32_t fat_get(const struct fat *f, uint32_t cl)
{
	uint8_t b[4] = {0};

	switch (f->bits) {
	case 12:
		vol_read(f->v, f->fat_off + cl + cl / 2, b, 2);
		return cl & 1 ? le16(b) >> 4 : le16(b) & 0xfff;
	case 16:
		vol_read(f->v, f->fat_off + cl * 2, b, 2);
		return le16(b);
	default:
		vol_read(f->v, f->fat_off + cl * 4, b, 4);
		return le32(b) & 0x0fffffff;
	}
}

/* Write entry @cl in every FAT copy, so that no copy repairs another. */
static void fat_set(const struct fat *f, uint32_t cl, uint32_t val)
{
	uint8_t b[4];
	uint32_t i;
	uint64_t off;

	for (i = 0; i < f->nr_fats; i++) {
		uint64_t fat = f->fat_off + (uint64_t)i * f->fat_bytes;

		switch (f->bits) {
		case 12:
			off = fat + cl + cl / 2;
			vol_read(f->v, off, b, 2);
			if (cl & 1)
				put_le16(b, (le16(b) & 0x000f) | (val & 0xfff) << 4);
			else
				put_le16(b, (le16(b) & 0xf000) | (val & 0xfff));
			vol_write(f->v, off, b, 2);
			break;
		case 16:
			put_le16(b, val);
			vol_write(f->v, fat + cl * 2, b, 2);
			break;
		default:
			off = fat + cl * 4;
			vol_read(f->v, off, b, 4);
			put_le32(b, (le32(b) & 0xf0000000) | (val & 0x0fffffff));
			vol_write(f->v, off, b, 4);
			break;
		}
	}
}

static bool fat_is_eoc(const struct fat *f, uint32_t val)
{
	return val >= (fat_eoc(f) & ~7u);
}

static uint64_t fat_cluster_off(const struct fat *f, uint32_t cl)
{
	return f->data_off + (uint64_t)(cl - 2) * f->cluster_bytes;
}

/* A directory entry found by path, and where it lives on the volume. */
struct fat_dirent {
	uint8_t raw[32];
	uint64_t off;
};

static uint32_t fat_dirent_start(const struct fat *f, const uint8_t *d)
{
	uint32_t start = le16(d + 26);

	if (f->bits == 32)
		start |= (uint32_t)le16(d + 20) << 16;
	return start;
}

/* Turn "name.ext" into the 11-byte 8.3 form; false if it does not fit. */
static bool fat_short_name(const char *name, char out[11])
{
	const char *dot = strrchr(name, '.');
	size_t base = dot ? (size_t)(dot - name) : strlen(name);
	size_t ext = dot ? strlen(dot + 1) : 0;
	size_t i;

	if (!base || base > 8 || ext > 3)
		return false;
	memset(out, ' ', 11);
	for (i = 0; i < base; i++)
		out[i] = toupper((unsigned char)name[i]);
	for (i = 0; i < ext; i++)
		out[8 + i] = toupper((unsigned char)dot[1 + i]);
	return true;
}

/*
 * Look @name up in the directory that starts at @cluster (0: the FAT12/16
 * root).  Only 8.3 names are matched: the images are made by the test
 * harness, which uses them.
 */
static bool fat_lookup_in(const struct fat *f, uint32_t cluster,
			  const char *name, struct fat_dirent *out)
{
	char want[11];
	uint8_t d[32];
	uint64_t off, end;
	uint32_t steps = 0;

	if (!fat_short_name(name, want))
		die("%s: fscorrupt finds 8.3 names only", name);
	for (;;) {
		if (cluster == 0) {
			off = f->root_off;
			end = off + (uint64_t)f->root_entries * 32;
		} else {
			if (cluster < 2 || cluster > fat_max_cluster(f))
				die("corrupted image: directory cluster %u out of range", cluster);
			off = fat_cluster_off(f, cluster);
			end = off + f->cluster_bytes;
		}
		for (; off < end; off += 32) {
			vol_read(f->v, off, d, 32);
			if (d[0] == 0)
				return false;
			if (d[0] == 0xe5 || (d[11] & 0x0f) == 0x0f)
				continue;
			if (!memcmp(d, want, 11)) {
				memcpy(out->raw, d, 32);
				out->off = off;
				return true;
			}
		}
		if (cluster == 0)
			return false;
		cluster = fat_get(f, cluster);
		if (fat_is_eoc(f, cluster))
			return false;
		if (++steps > f->nr_clusters)
			die("corrupted image: directory cluster chain loops");
	}
}

static void fat_lookup(const struct fat *f, const char *path,
		       struct fat_dirent *out)
{
	char *copy = strdup(path), *save = NULL, *name;
	uint32_t dir = f->bits == 32 ? f->root_cluster : 0;
	bool found = false;

	if (!copy)
		die("out of memory");
	for (name = strtok_r(copy, "/", &save); name;
	     name = strtok_r(NULL, "/", &save)) {
		if (!fat_lookup_in(f, dir, name, out))
			die("%s: not found", path);
		found = true;
		dir = fat_dirent_start(f, out->raw);
	}
	free(copy);
	if (!found)
		die("%s: give a file or directory, not the root", path);
}

static uint32_t fat_file_start(const struct fat *f, const char *path,
			       struct fat_dirent *de)
{
	uint32_t start;

	fat_lookup(f, path, de);
	start = fat_dirent_start(f, de->raw);
	if (start < 2 || start > fat_max_cluster(f))
		die("%s: has no valid first cluster (%u)", path, start);
	return start;
}

/* The FAT entry of the file's first cluster points past the last cluster. */
static void fat_chain_past_end(const struct fat *f, const char *path)
{
	struct fat_dirent de;
	uint32_t start = fat_file_start(f, path, &de);
	uint32_t old = fat_get(f, start), bad = fat_max_cluster(f) + 1;

	if (fat_is_eoc(f, old))
		die("%s: fits in one cluster, so its chain has no link to break", path);
	fat_set(f, start, bad);
	printf("fat-chain-past-end %s: FAT entry of cluster %u: %#x -> %#x (last valid cluster %#x)\n",
	       path, start, old, bad, fat_max_cluster(f));
}

/* The FAT entry of the file's first cluster is marked free. */
static void fat_free_in_chain(const struct fat *f, const char *path)
{
	struct fat_dirent de;
	uint32_t start = fat_file_start(f, path, &de);
	uint32_t old = fat_get(f, start);

	if (fat_is_eoc(f, old))
		die("%s: fits in one cluster, so its chain has no link to break", path);
	fat_set(f, start, 0);
	printf("fat-free-in-chain %s: FAT entry of cluster %u: %#x -> 0 (free)\n",
	       path, start, old);
}

/* The directory entry's first cluster is past the last cluster. */
static void fat_dirent_bad_start(const struct fat *f, const char *path)
{
	struct fat_dirent de;
	uint32_t old = fat_file_start(f, path, &de);
	uint32_t bad = fat_max_cluster(f) + 1;

	put_le16(de.raw + 26, bad & 0xffff);
	if (f->bits == 32)
		put_le16(de.raw + 20, bad >> 16);
	vol_write(f->v, de.off, de.raw, 32);
	printf("fat-dirent-bad-start %s: directory entry at %#" PRIx64 ": start cluster %#x -> %#x\n",
	       path, de.off, old, bad);
}

/* The directory entry says the file is longer than its cluster chain. */
static void fat_size_past_chain(const struct fat *f, const char *path)
{
	struct fat_dirent de;
	uint32_t cl = fat_file_start(f, path, &de);
	uint32_t old = le32(de.raw + 28), n = 0, size;

	while (!fat_is_eoc(f, cl)) {
		if (cl < 2 || cl > fat_max_cluster(f) || ++n > f->nr_clusters)
			die("%s: cluster chain is already broken", path);
		cl = fat_get(f, cl);
	}
	size = (n + 2) * f->cluster_bytes;
	put_le32(de.raw + 28, size);
	vol_write(f->v, de.off, de.raw, 32);
	printf("fat-size-past-chain %s: size %u -> %u bytes (chain holds %u clusters of %u bytes)\n",
	       path, old, size, n, f->cluster_bytes);
}

/*
 * Print the clusters of a file or directory with their 512-byte sectors
 * counted from the start of the image (not of the partition), the numbers a
 * QEMU blkdebug rule needs.
 */
static void fat_locate(const struct fat *f, const char *path)
{
	struct fat_dirent de;
	uint32_t cl = fat_file_start(f, path, &de), n = 0;

	while (!fat_is_eoc(f, cl)) {
		if (cl < 2 || cl > fat_max_cluster(f) || ++n > f->nr_clusters)
			die("%s: cluster chain is broken", path);
		printf("%s cluster %u sector %" PRIu64 " count %u\n", path, cl,
		       (f->v->base + fat_cluster_off(f, cl)) / 512,
		       f->cluster_bytes / 512);
		cl = fat_get(f, cl);
	}
}

/*
 * Print the image sector (512-byte units from the start of the image) that
 * holds the FAT entry of a file's first cluster in the first FAT, the one
 * Linux reads.
 */
static void fat_locate_fat(const struct fat *f, const char *path)
{
	struct fat_dirent de;
	uint32_t cl = fat_file_start(f, path, &de);
	uint64_t off = f->bits == 12 ? cl + cl / 2 : (uint64_t)cl * (f->bits / 8);

	printf("%s cluster %u fat_sector %" PRIu64 "\n", path, cl,
	       (f->v->base + f->fat_off + off) / 512);
}

static void fat_info(const struct fat *f)
{
	printf("fat%d clusters %u cluster_bytes %u fat_sector %" PRIu64
	       " fat_sectors %u fats %u root_sector %" PRIu64 " data_sector %" PRIu64 "\n",
	       f->bits, f->nr_clusters, f->cluster_bytes, f->fat_off / 512,
	       f->fat_bytes / 512, f->nr_fats, f->root_off / 512,
	       f->data_off / 512);
}

/* ---------------------------------------------------------------- ext2 */

struct ext2 {
	struct vol *v;
	uint32_t block_size;
	uint32_t inodes_count;
	uint32_t inodes_per_group;
	uint32_t inode_size;
	uint32_t first_data_block;
	uint32_t groups;
};

static bool ext2_probe(struct vol *v, struct ext2 *e)
{
	uint8_t sb[1024];
	uint32_t log, blocks, per_group;

	if (v->size < 2048)
		return false;
	vol_read(v, 1024, sb, sizeof(sb));
	if (le16(sb + 56) != 0xef53)
		return false;
	log = le32(sb + 24);
	if (log > 6)
		die("corrupted image: ext2 block size 2^(10+%u)", log);
	memset(e, 0, sizeof(*e));
	e->v = v;
	e->block_size = 1024u << log;
	e->inodes_count = le32(sb + 0);
	blocks = le32(sb + 4);
	e->first_data_block = le32(sb + 20);
	per_group = le32(sb + 32);
	e->inodes_per_group = le32(sb + 40);
	e->inode_size = le32(sb + 76) >= 1 ? le16(sb + 88) : 128;
	if (!per_group || !e->inodes_per_group || e->inode_size < 128)
		die("corrupted image: ext2 superblock geometry is zero");
	e->groups = (blocks - e->first_data_block + per_group - 1) / per_group;
	return true;
}

static uint64_t ext2_block_off(const struct ext2 *e, uint32_t block)
{
	return (uint64_t)block * e->block_size;
}

static uint64_t ext2_inode_off(const struct ext2 *e, uint32_t ino)
{
	uint32_t group = (ino - 1) / e->inodes_per_group;
	uint32_t index = (ino - 1) % e->inodes_per_group;
	uint8_t gd[32];

	if (ino < 1 || ino > e->inodes_count)
		die("corrupted image: inode %u out of range", ino);
	vol_read(e->v, ext2_block_off(e, e->first_data_block + 1) + group * 32,
		 gd, sizeof(gd));
	return ext2_block_off(e, le32(gd + 8)) + (uint64_t)index * e->inode_size;
}

/* A directory entry found by path, and where it lives on the volume. */
struct ext2_dirent {
	uint32_t ino;
	uint64_t off;
	uint16_t rec_len;
};

/* Look @name up in the direct blocks of directory @dir. */
static bool ext2_lookup_in(const struct ext2 *e, uint32_t dir, const char *name,
			   struct ext2_dirent *out)
{
	uint8_t inode[128], *blk;
	uint32_t i, pos, len = strlen(name);
	bool found = false;

	vol_read(e->v, ext2_inode_off(e, dir), inode, sizeof(inode));
	if ((le16(inode) & 0xf000) != 0x4000)
		die("inode %u is not a directory", dir);
	blk = malloc(e->block_size);
	if (!blk)
		die("out of memory");
	for (i = 0; i < 12 && !found; i++) {
		uint32_t block = le32(inode + 40 + 4 * i);

		if (!block)
			break;
		vol_read(e->v, ext2_block_off(e, block), blk, e->block_size);
		for (pos = 0; pos + 8 <= e->block_size;) {
			uint16_t rec_len = le16(blk + pos + 4);

			if (rec_len < 8 || pos + rec_len > e->block_size)
				die("corrupted image: bad directory entry in block %u", block);
			if (le32(blk + pos) && blk[pos + 6] == len &&
			    !memcmp(blk + pos + 8, name, len)) {
				out->ino = le32(blk + pos);
				out->off = ext2_block_off(e, block) + pos;
				out->rec_len = rec_len;
				found = true;
				break;
			}
			pos += rec_len;
		}
	}
	free(blk);
	return found;
}

static void ext2_lookup(const struct ext2 *e, const char *path,
			struct ext2_dirent *out)
{
	char *copy = strdup(path), *save = NULL, *name;
	uint32_t dir = 2;	/* root */
	bool found = false;

	if (!copy)
		die("out of memory");
	for (name = strtok_r(copy, "/", &save); name;
	     name = strtok_r(NULL, "/", &save)) {
		if (!ext2_lookup_in(e, dir, name, out))
			die("%s: not found", path);
		dir = out->ino;
		found = true;
	}
	free(copy);
	if (!found)
		die("%s: give a file or directory, not the root", path);
}

/* The directory entry of PATH names a reserved inode (5, the boot loader). */
static void ext2_dirent_bad_inode(const struct ext2 *e, const char *path)
{
	struct ext2_dirent de;
	uint8_t b[4];

	ext2_lookup(e, path, &de);
	put_le32(b, 5);
	vol_write(e->v, de.off, b, 4);
	printf("ext2-dirent-bad-inode %s: directory entry at %#" PRIx64 ": inode %u -> 5 (reserved)\n",
	       path, de.off, de.ino);
}

/* The directory entry of PATH gets a record length that is not a multiple of 4. */
static void ext2_dirent_bad_reclen(const struct ext2 *e, const char *path)
{
	struct ext2_dirent de;
	uint8_t b[2];

	ext2_lookup(e, path, &de);
	put_le16(b, de.rec_len - 1);
	vol_write(e->v, de.off + 4, b, 2);
	printf("ext2-dirent-bad-reclen %s: directory entry at %#" PRIx64 ": rec_len %u -> %u\n",
	       path, de.off, de.rec_len, de.rec_len - 1);
}

static void ext2_info(const struct ext2 *e)
{
	printf("ext2 block_size %u groups %u inodes %u inode_size %u\n",
	       e->block_size, e->groups, e->inodes_count, e->inode_size);
}

/* ---------------------------------------------------------------- random */

static uint64_t rng_next(uint64_t *s)
{
	/* xorshift64*: the same seed gives the same corruption everywhere */
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 0x2545f4914f6cdd1dULL;
}

/*
 * Flip @count random bytes in the metadata areas: for FAT the first FAT and
 * the root directory (FAT12/16) or the root directory cluster (FAT32); for
 * ext2 the group descriptors, bitmaps and inode table of group 0.  The boot
 * sector and the ext2 superblock are spared, so the volume still mounts.
 */
static void random_corrupt(struct vol *v, uint64_t seed, unsigned int count)
{
	struct fat f;
	struct ext2 e;
	uint64_t s = seed ? seed : 1, lo, hi, off;
	uint8_t b, nb;
	unsigned int i;

	if (fat_probe(v, &f)) {
		lo = f.fat_off;
		hi = f.bits == 32 ? fat_cluster_off(&f, f.root_cluster) + f.cluster_bytes
				  : f.data_off;
	} else if (ext2_probe(v, &e)) {
		uint8_t gd[32];

		vol_read(v, ext2_block_off(&e, e.first_data_block + 1), gd, sizeof(gd));
		lo = ext2_block_off(&e, e.first_data_block + 1);
		hi = ext2_block_off(&e, le32(gd + 8)) +
		     (uint64_t)e.inodes_per_group * e.inode_size;
	} else {
		die("not a FAT or ext2 filesystem");
	}
	if (hi <= lo || hi > v->size)
		die("corrupted image: metadata area %#" PRIx64 "-%#" PRIx64 " out of range", lo, hi);
	for (i = 0; i < count; i++) {
		off = lo + rng_next(&s) % (hi - lo);
		vol_read(v, off, &b, 1);
		nb = b ^ (uint8_t)(1 + rng_next(&s) % 255);
		vol_write(v, off, &nb, 1);
		printf("random seed %" PRIu64 ": byte %#" PRIx64 ": %#04x -> %#04x\n",
		       seed, off, b, nb);
	}
}

/* --------------------------------------------------------------- exFAT */

struct exfat {
	struct vol *v;
	uint32_t sector_bytes;
	uint32_t cluster_bytes;
	uint64_t fat_off;		/* first FAT */
	uint32_t fat_bytes;
	uint32_t nr_fats;
	uint64_t heap_off;		/* cluster 2 */
	uint32_t nr_clusters;
	uint32_t root_cluster;
	uint32_t serial;
};

#define EXFAT_EOC	0xffffffffu
#define EXFAT_NO_FAT_CHAIN	0x02	/* stream extension flag */

static bool exfat_probe(struct vol *v, struct exfat *x)
{
	uint8_t bs[512];

	vol_read(v, 0, bs, sizeof(bs));
	if (memcmp(bs + 3, "EXFAT   ", 8) || bs[510] != 0x55 || bs[511] != 0xaa)
		return false;
	if (bs[0x6c] < 9 || bs[0x6c] > 12 || bs[0x6c] + bs[0x6d] > 25 ||
	    (bs[0x6e] != 1 && bs[0x6e] != 2))
		die("corrupted exFAT boot sector: sector shift %u, cluster shift %u, %u FATs",
		    bs[0x6c], bs[0x6d], bs[0x6e]);
	memset(x, 0, sizeof(*x));
	x->v = v;
	x->sector_bytes = 1u << bs[0x6c];
	x->cluster_bytes = x->sector_bytes << bs[0x6d];
	x->fat_off = (uint64_t)le32(bs + 0x50) * x->sector_bytes;
	x->fat_bytes = le32(bs + 0x54) * x->sector_bytes;
	x->nr_fats = bs[0x6e];
	x->heap_off = (uint64_t)le32(bs + 0x58) * x->sector_bytes;
	x->nr_clusters = le32(bs + 0x5c);
	x->root_cluster = le32(bs + 0x60);
	x->serial = le32(bs + 0x64);
	if ((uint64_t)(x->nr_clusters + 2) * 4 > x->fat_bytes)
		die("corrupted exFAT boot sector: %u clusters do not fit a FAT of %u bytes",
		    x->nr_clusters, x->fat_bytes);
	return true;
}

static bool exfat_valid(const struct exfat *x, uint32_t cl)
{
	return cl >= 2 && cl < x->nr_clusters + 2;
}

static uint32_t exfat_fat_get(const struct exfat *x, uint32_t cl)
{
	uint8_t b[4];

	vol_read(x->v, x->fat_off + (uint64_t)cl * 4, b, 4);
	return le32(b);
}

/* Both FATs, as fat_set() does (exFAT's second FAT exists only for TexFAT) */
static void exfat_fat_set(const struct exfat *x, uint32_t cl, uint32_t val)
{
	uint8_t b[4];
	uint32_t i;

	put_le32(b, val);
	for (i = 0; i < x->nr_fats; i++)
		vol_write(x->v, x->fat_off + (uint64_t)i * x->fat_bytes + (uint64_t)cl * 4, b, 4);
}

static uint64_t exfat_cluster_off(const struct exfat *x, uint32_t cl)
{
	return x->heap_off + (uint64_t)(cl - 2) * x->cluster_bytes;
}

/* A file or directory found by exfat_lookup(): its stream extension */
struct exfat_file {
	uint32_t first_cluster;
	uint64_t size;
	bool fat_chain;		/* NoFatChain clear: its clusters are linked in the FAT */
	bool is_dir;
};

/*
 * The next cluster of a directory: the FAT's link, or the next one for a
 * contiguous (NoFatChain) directory of @clusters clusters. 0 at the end.
 */
static uint32_t exfat_dir_next(const struct exfat *x, const struct exfat_file *dir,
			       uint32_t cl, uint32_t *left)
{
	uint32_t next;

	if (!dir->fat_chain)
		return --*left ? cl + 1 : 0;
	next = exfat_fat_get(x, cl);
	if (next == EXFAT_EOC)
		return 0;
	if (!exfat_valid(x, next) || !--*left)
		die("corrupted image: directory cluster chain broken at cluster %u", cl);
	return next;
}

/* Whether the UTF-16LE @name16 of @len characters is @name (ASCII, any case) */
static bool exfat_name_is(const uint8_t *name16, unsigned int len, const char *name)
{
	unsigned int i;

	if (strlen(name) != len)
		return false;
	for (i = 0; i < len; i++)
		if (name16[2 * i + 1] || toupper(name16[2 * i]) != toupper((unsigned char)name[i]))
			return false;
	return true;
}

/* Find @name in @dir; the offset of its file entry in *@entry_off. */
static bool exfat_lookup_in(const struct exfat *x, const struct exfat_file *dir,
			    const char *name, struct exfat_file *out, uint64_t *entry_off)
{
	uint32_t cl = dir->first_cluster, left;
	uint32_t per_cluster = x->cluster_bytes / 32, i;
	uint8_t *buf = malloc(x->cluster_bytes), name16[2 * 255];
	bool found = false;

	if (!buf)
		die("out of memory");
	left = dir->fat_chain ? x->nr_clusters :
	       (uint32_t)((dir->size + x->cluster_bytes - 1) / x->cluster_bytes);
	while (cl && !found) {
		if (!exfat_valid(x, cl))
			die("corrupted image: directory cluster %u is out of range", cl);
		vol_read(x->v, exfat_cluster_off(x, cl), buf, x->cluster_bytes);
		for (i = 0; i < per_cluster && !found; i++) {
			const uint8_t *e = buf + 32 * i, *st;
			unsigned int secondary = e[1], namelen, j, got = 0;

			if (e[0] == 0x00)
				goto out;		/* end of directory */
			if (e[0] != 0x85)
				continue;
			/* (an entry set that crosses a cluster is not looked into) */
			if (i + 1 + secondary > per_cluster || secondary < 2)
				continue;
			st = e + 32;
			if (st[0] != 0xc0)
				continue;
			namelen = st[3];
			for (j = 2; j <= secondary && got < namelen; j++) {
				const uint8_t *ne = e + 32 * j;
				unsigned int n = namelen - got < 15 ? namelen - got : 15;

				if (ne[0] != 0xc1)
					break;
				memcpy(name16 + 2 * got, ne + 2, 2 * n);
				got += n;
			}
			if (got != namelen || !exfat_name_is(name16, namelen, name))
				continue;
			out->first_cluster = le32(st + 20);
			out->size = le32(st + 24) | (uint64_t)le32(st + 28) << 32;
			out->fat_chain = !(st[1] & EXFAT_NO_FAT_CHAIN);
			out->is_dir = le16(e + 4) & 0x10;
			*entry_off = exfat_cluster_off(x, cl) + 32 * i;
			found = true;
		}
		if (!found)
			cl = exfat_dir_next(x, dir, cl, &left);
	}
out:
	free(buf);
	return found;
}

static void exfat_lookup(const struct exfat *x, const char *path, struct exfat_file *out)
{
	struct exfat_file dir = { .first_cluster = x->root_cluster, .fat_chain = true,
				  .is_dir = true };
	char *copy = strdup(path), *name, *save = NULL;
	uint64_t entry_off;
	int found = 0;

	if (!copy)
		die("out of memory");
	for (name = strtok_r(copy, "/", &save); name; name = strtok_r(NULL, "/", &save)) {
		if (!dir.is_dir)
			die("%s: a component before '%s' is not a directory", path, name);
		if (!exfat_lookup_in(x, &dir, name, out, &entry_off))
			die("%s: '%s' not found", path, name);
		dir = *out;
		found++;
	}
	free(copy);
	if (!found)
		die("'%s' names the root directory, not a file", path);
}

/* A file whose clusters are linked in the FAT, with a link to break */
static uint32_t exfat_chained_start(const struct exfat *x, const char *path)
{
	struct exfat_file file;
	uint32_t next;

	exfat_lookup(x, path, &file);
	if (!exfat_valid(x, file.first_cluster))
		die("%s: has no valid first cluster (%u)", path, file.first_cluster);
	if (!file.fat_chain)
		die("%s: is contiguous (NoFatChain): the FAT holds no link of it; write it "
		    "fragmented (another file's cluster between two of its own)", path);
	next = exfat_fat_get(x, file.first_cluster);
	if (next == EXFAT_EOC)
		die("%s: fits in one cluster, so its chain has no link to break", path);
	return file.first_cluster;
}

/* The FAT entry of the file's first cluster is marked free. */
static void exfat_free_in_chain(const struct exfat *x, const char *path)
{
	uint32_t start = exfat_chained_start(x, path), old = exfat_fat_get(x, start);

	exfat_fat_set(x, start, 0);
	printf("exfat-free-in-chain %s: FAT entry of cluster %u: %#x -> 0 (free)\n",
	       path, start, old);
}

/* The FAT entry of the file's first cluster points past the last cluster. */
static void exfat_chain_past_end(const struct exfat *x, const char *path)
{
	uint32_t start = exfat_chained_start(x, path), old = exfat_fat_get(x, start);
	uint32_t bad = x->nr_clusters + 2;

	exfat_fat_set(x, start, bad);
	printf("exfat-chain-past-end %s: FAT entry of cluster %u: %#x -> %#x (last valid cluster %#x)\n",
	       path, start, old, bad, x->nr_clusters + 1);
}

static void exfat_info(const struct exfat *x)
{
	printf("exfat clusters %u cluster_bytes %u fat_sector %" PRIu64 " fats %u "
	       "heap_sector %" PRIu64 " root_cluster %u serial %04X-%04X\n",
	       x->nr_clusters, x->cluster_bytes, x->fat_off / 512, x->nr_fats,
	       x->heap_off / 512, x->root_cluster, x->serial >> 16, x->serial & 0xffff);
}

/* ---------------------------------------------------------------- main */

static void usage(FILE *to)
{
	fprintf(to,
"usage: fscorrupt [--partition N] [--dry-run] IMAGE COMMAND [ARGS]\n"
"\n"
"Makes one named corruption in a FAT12/16/32, exFAT or ext2 image and prints it.\n"
"\n"
"  --partition N   work on MBR partition N (1-4) of IMAGE\n"
"  --dry-run       check and print, write nothing\n"
"\n"
"Commands:\n"
"  info                          print the filesystem layout\n"
"  locate PATH                   print the clusters of a FAT file, with image sectors\n"
"  locate-fat PATH               print the image sector of the FAT entry of PATH's\n"
"                                first cluster\n"
"  fat-chain-past-end PATH       FAT link of PATH's first cluster past the last cluster\n"
"  fat-free-in-chain PATH        FAT link of PATH's first cluster marked free\n"
"  fat-dirent-bad-start PATH     PATH's directory entry starts past the last cluster\n"
"  fat-size-past-chain PATH      PATH's size is two clusters longer than its chain\n"
"  exfat-free-in-chain PATH      exFAT: FAT link of PATH's first cluster marked free\n"
"                                (PATH must be fragmented, its clusters in the FAT)\n"
"  exfat-chain-past-end PATH     exFAT: FAT link of PATH's first cluster past the\n"
"                                last cluster\n"
"  ext2-dirent-bad-inode PATH    PATH's directory entry names reserved inode 5\n"
"  ext2-dirent-bad-reclen PATH   PATH's directory entry gets a misaligned rec_len\n"
"  random SEED COUNT             flip COUNT bytes of metadata, chosen by SEED\n"
"\n"
"PATH is /-separated from the root; FAT names are 8.3, exFAT names ASCII (any\n"
"case). Exit status 0 when the\n"
"corruption was made, 1 (and nothing written) otherwise.\n");
}

static unsigned long long parse_number(const char *s, const char *what)
{
	unsigned long long n;
	char *end;

	errno = 0;
	n = strtoull(s, &end, 0);
	if (errno || end == s || *end || *s == '-')
		die("%s: not a number: '%s'", what, s);
	return n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "partition", required_argument, NULL, 'p' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	struct vol v = { .fd = -1 };
	const char *image, *cmd, *arg;
	int part = 0, c, nargs;
	struct stat st;
	struct fat f;
	struct ext2 e;
	struct exfat x;
	bool is_fat, is_ext2 = false, is_exfat;

	while ((c = getopt_long(argc, argv, "p:nh", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			part = parse_number(optarg, "--partition");
			break;
		case 'n':
			v.dry_run = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (argc - optind < 2) {
		usage(stderr);
		return 2;
	}
	image = argv[optind];
	cmd = argv[optind + 1];
	arg = argv[optind + 2];
	nargs = argc - optind - 2;

	v.fd = open(image, v.dry_run ? O_RDONLY : O_RDWR);
	if (v.fd < 0)
		die("%s: %s", image, strerror(errno));
	if (fstat(v.fd, &st))
		die("%s: %s", image, strerror(errno));
	v.size = st.st_size;
	if (S_ISBLK(st.st_mode)) {
		off_t end = lseek(v.fd, 0, SEEK_END);

		if (end < 0)
			die("%s: %s", image, strerror(errno));
		v.size = end;
	}
	if (part)
		vol_select_partition(&v, part);

	if (!strcmp(cmd, "random")) {
		if (nargs != 2)
			die("random needs SEED and COUNT");
		random_corrupt(&v, parse_number(argv[optind + 2], "SEED"),
			       parse_number(argv[optind + 3], "COUNT"));
		goto out;
	}
	is_exfat = exfat_probe(&v, &x);
	is_fat = !is_exfat && fat_probe(&v, &f);
	if (!is_fat && !is_exfat)
		is_ext2 = ext2_probe(&v, &e);
	if (!is_fat && !is_ext2 && !is_exfat)
		die("%s: not a FAT, exFAT or ext2 filesystem", image);
	if (!strcmp(cmd, "info")) {
		if (is_fat)
			fat_info(&f);
		else if (is_exfat)
			exfat_info(&x);
		else
			ext2_info(&e);
		goto out;
	}
	if (nargs != 1)
		die("%s needs exactly one PATH", cmd);
	if (!strncmp(cmd, "exfat-", 6)) {
		if (!is_exfat)
			die("%s: is not exFAT, %s needs exFAT", image, cmd);
		if (!strcmp(cmd, "exfat-free-in-chain"))
			exfat_free_in_chain(&x, arg);
		else if (!strcmp(cmd, "exfat-chain-past-end"))
			exfat_chain_past_end(&x, arg);
		else
			die("unknown command '%s' (see --help)", cmd);
	} else if (!strncmp(cmd, "fat-", 4) || !strncmp(cmd, "locate", 6)) {
		if (!is_fat)
			die("%s: is not FAT, %s needs FAT", image, cmd);
		if (!strcmp(cmd, "locate"))
			fat_locate(&f, arg);
		else if (!strcmp(cmd, "locate-fat"))
			fat_locate_fat(&f, arg);
		else if (!strcmp(cmd, "fat-chain-past-end"))
			fat_chain_past_end(&f, arg);
		else if (!strcmp(cmd, "fat-free-in-chain"))
			fat_free_in_chain(&f, arg);
		else if (!strcmp(cmd, "fat-dirent-bad-start"))
			fat_dirent_bad_start(&f, arg);
		else if (!strcmp(cmd, "fat-size-past-chain"))
			fat_size_past_chain(&f, arg);
		else
			die("unknown command '%s' (see --help)", cmd);
	} else if (!strncmp(cmd, "ext2-", 5)) {
		if (!is_ext2)
			die("%s: is not ext2, %s needs ext2", image, cmd);
		if (!strcmp(cmd, "ext2-dirent-bad-inode"))
			ext2_dirent_bad_inode(&e, arg);
		else if (!strcmp(cmd, "ext2-dirent-bad-reclen"))
			ext2_dirent_bad_reclen(&e, arg);
		else
			die("unknown command '%s' (see --help)", cmd);
	} else {
		die("unknown command '%s' (see --help)", cmd);
	}
out:
	if (close(v.fd))
		die("%s: %s", image, strerror(errno));
	return 0;
}
