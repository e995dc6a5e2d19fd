// SPDX-License-Identifier: GPL-2.0
/* Host tests of fserrd's log line: the format, escapes, and values too long
 * for the line, which must be cut inside the buffer, never past it. Built
 * with AddressSanitizer and UBSan (make test). */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "lib/logline.h"

static size_t fmt(char *buf, size_t size, const char *what, ...)
	__attribute__((sentinel));

static size_t fmt(char *buf, size_t size, const char *what, ...)
{
	va_list ap;
	size_t n;

	va_start(ap, what);
	n = fserr_logline_format(buf, size, "2026-12-04T00:00:00Z", what, ap);
	va_end(ap);
	return n;
}

/* Quotes outside escapes are balanced: a cut line still parses. */
static int balanced(const char *s)
{
	int open = 0;

	for (; *s; s++) {
		if (*s == '\\' && s[1])
			s++;
		else if (*s == '"')
			open = !open;
	}
	return !open;
}

TEST(format_and_escapes)
{
	char buf[FSERR_LOGLINE_MAX];
	size_t n;

	n = fmt(buf, sizeof(buf), "fault", "dev", "179:1", "mountpoints", "/a b\n/c\"d",
		"empty", "", "null", NULL, NULL);
	EXPECT_STREQ("2026-12-04T00:00:00Z fserrd: fault dev=179:1 "
		     "mountpoints=\"/a b\\n/c\\\"d\" empty=\"\" null=\"\"", buf);
	EXPECT_EQ(strlen(buf), n);
}

/*
 * A value that nearly fills the line, then another key: the line is cut,
 * says so, and everything stays inside the buffer (the old code's size
 * arithmetic wrapped here and wrote past the end of the stack buffer).
 */
TEST(long_value_then_key)
{
	static char big[FSERR_LOGLINE_MAX];
	char buf[FSERR_LOGLINE_MAX];
	size_t len, n;

	for (len = 8100; len < sizeof(big); len++) {
		memset(big, 'a', len);
		big[len] = '\0';
		n = fmt(buf, sizeof(buf), "fault", "sysfs", big, "mountpoints", "/mnt",
			"error", "Input/output error", NULL);
		EXPECT_EQ(strlen(buf), n);
		EXPECT_LT(n, sizeof(buf));
		EXPECT_NE(NULL, strstr(buf, " truncated=yes")) {
			TH_LOG("value of %zu bytes: the cut line does not say so", len);
		}
		EXPECT_TRUE(balanced(buf));
	}
}

/*
 * At every buffer size from 0 (exact-size heap buffers: ASan sees one byte
 * past the end), with a long value full of escapes, then with a short
 * quoted value whose closing quote may be the piece that does not fit: the
 * line stays inside, is terminated and balanced, and a line that differs
 * from the uncut one says that it was cut.
 */
static void every_size(struct __test_metadata *_metadata, const char *val)
{
	char full[FSERR_LOGLINE_MAX], *buf;
	size_t size, n;

	fmt(full, sizeof(full), "exec", "program", val, "status", "exit 1", NULL);
	for (size = 0; size <= strlen(full) + 40; size++) {
		buf = size ? malloc(size) : NULL;
		ASSERT_TRUE(!size || buf);
		n = fmt(buf, size, "exec", "program", val, "status", "exit 1", NULL);
		if (!size) {
			EXPECT_EQ(0, n);
			continue;
		}
		EXPECT_EQ(strlen(buf), n);
		EXPECT_LT(n, size);
		EXPECT_TRUE(balanced(buf)) {
			TH_LOG("size %zu: %s", size, buf);
		}
		if (strcmp(buf, full) && size >= 17)
			EXPECT_NE(NULL, strstr(buf, " truncated=yes")) {
				TH_LOG("size %zu: cut without saying so: %s", size, buf);
			}
		free(buf);
	}
}

TEST(every_size_long_escaped_value)
{
	static char val[600];
	size_t i;

	for (i = 0; i < sizeof(val) - 1; i++)
		val[i] = "ab \"\\\n\x01="[i % 8];
	every_size(_metadata, val);
}

TEST(every_size_short_quoted_value)
{
	every_size(_metadata, "a b");
	every_size(_metadata, "caf\xc3\xa9 \xe2\x80\xae");
}

/* Bytes from 0x7f up are escaped: no raw UTF-8, C1 control or bidi override. */
TEST(high_bytes_escaped)
{
	char buf[256];

	fmt(buf, sizeof(buf), "fault", "mountpoints", "/media/caf\xc3\xa9\xe2\x80\xae", NULL);
	EXPECT_STREQ("2026-12-04T00:00:00Z fserrd: fault "
		     "mountpoints=\"/media/caf\\xc3\\xa9\\xe2\\x80\\xae\"", buf);
}

TEST_HARNESS_MAIN
