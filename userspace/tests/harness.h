/* SPDX-License-Identifier: GPL-2.0 */
/*
 * harness.h: the unit tests' harness, so that they build without a kernel
 * tree. It has the interface of the part of the kernel's
 * tools/testing/selftests/kselftest_harness.h that the tests use, with the
 * same meaning:
 *
 *   TEST(name) { ... }
 *   FIXTURE(f) { fields };  FIXTURE_DATA(f)  FIXTURE_SETUP(f) { ... }
 *   FIXTURE_TEARDOWN(f) { ... }  TEST_F(f, name) { ... self->field ... }
 *   ASSERT_EQ/NE/LT/LE/GT/GE/TRUE/FALSE/STREQ/STRNE, the same with EXPECT_
 *   SKIP(statement, fmt, ...)  TH_LOG(fmt, ...)  TEST_HARNESS_MAIN
 *
 * A failed EXPECT marks the test failed and goes on; a failed ASSERT ends
 * it (the teardown still runs). Either may be followed by a statement or a
 * block that runs only when the check failed: EXPECT_EQ(a, b) TH_LOG(...);
 * Each test runs in a child process of its own, killed by the parent after
 * TH_TIMEOUT_S (30 s unless the program defines it before this file). The
 * output is TAP, the plan first; the exit status is 1 if a test failed.
 */
#ifndef FSERR_TEST_HARNESS_H
#define FSERR_TEST_HARNESS_H

#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TH_TIMEOUT_S
#define TH_TIMEOUT_S	30	/* seconds; a test program may set its own */
#endif
#define TH_SKIP_EXIT	4

struct __test_metadata {
	const char *name;
	void (*fn)(struct __test_metadata *_metadata);
	struct __test_metadata *next;
	/* set by the test, in memory shared with the parent */
	int failed, skipped, done;
	char skip_reason[256];
	jmp_buf *env;
};

static struct __test_metadata *th_first, **th_last = &th_first;

static inline void th_register(struct __test_metadata *t)
{
	*th_last = t;
	th_last = &t->next;
}

static inline void th_bail(struct __test_metadata *m)
{
	longjmp(*m->env, 1);
}

#define TH_LOG(fmt, ...) \
	printf("# %s:%d: " fmt "\n", __FILE__, __LINE__, ##__VA_ARGS__)

#define SKIP(statement, fmt, ...) do { \
	_metadata->skipped = 1; \
	snprintf(_metadata->skip_reason, sizeof(_metadata->skip_reason), fmt, ##__VA_ARGS__); \
	statement; \
} while (0)

/*
 * One statement, a loop that runs at most once: if the check holds,
 * nothing; else the test is marked failed, what follows the check (a
 * statement or a block) runs, and then an ASSERT ends the test. The
 * handler is the body of an inner loop of its own, so that a break or a
 * continue in it leaves the handler only: the ASSERT still ends the test.
 */
#define TH_CHECK(ok, is_assert) \
	for (int _th_once = !(ok) && (_metadata->failed = 1); _th_once; \
	     _th_once = 0, (is_assert) ? th_bail(_metadata) : (void)0) \
		for (int _th_body = 1; _th_body; _th_body = 0)

#define TH_CMP(a, op, b, is_assert) \
	TH_CHECK(({ __typeof__(a) _th_a = (a); __typeof__(b) _th_b = (b); \
		int _th_ok = _th_a op _th_b; \
		if (!_th_ok) \
			printf("# %s:%d: expected %s (%lld) %s %s (%lld)\n", __FILE__, __LINE__, \
			       #a, (long long)(intptr_t)_th_a, #op, #b, \
			       (long long)(intptr_t)_th_b); \
		_th_ok; }), is_assert)

#define TH_STR(a, want_equal, b, is_assert) \
	TH_CHECK(({ const char *_th_a = (a), *_th_b = (b); \
		int _th_ok = _th_a && _th_b && (strcmp(_th_a, _th_b) == 0) == (want_equal); \
		if (!_th_ok) \
			printf("# %s:%d: expected %s \"%s\" %s %s \"%s\"\n", __FILE__, __LINE__, \
			       #a, _th_a ? _th_a : "(null)", (want_equal) ? "==" : "!=", #b, \
			       _th_b ? _th_b : "(null)"); \
		_th_ok; }), is_assert)

#define ASSERT_EQ(a, b)		TH_CMP(a, ==, b, 1)
#define ASSERT_NE(a, b)		TH_CMP(a, !=, b, 1)
#define ASSERT_LT(a, b)		TH_CMP(a, <, b, 1)
#define ASSERT_LE(a, b)		TH_CMP(a, <=, b, 1)
#define ASSERT_GT(a, b)		TH_CMP(a, >, b, 1)
#define ASSERT_GE(a, b)		TH_CMP(a, >=, b, 1)
#define ASSERT_TRUE(a)		TH_CMP(!!(a), ==, 1, 1)
#define ASSERT_FALSE(a)		TH_CMP(!!(a), ==, 0, 1)
#define ASSERT_STREQ(a, b)	TH_STR(a, 1, b, 1)
#define ASSERT_STRNE(a, b)	TH_STR(a, 0, b, 1)
#define EXPECT_EQ(a, b)		TH_CMP(a, ==, b, 0)
#define EXPECT_NE(a, b)		TH_CMP(a, !=, b, 0)
#define EXPECT_LT(a, b)		TH_CMP(a, <, b, 0)
#define EXPECT_LE(a, b)		TH_CMP(a, <=, b, 0)
#define EXPECT_GT(a, b)		TH_CMP(a, >, b, 0)
#define EXPECT_GE(a, b)		TH_CMP(a, >=, b, 0)
#define EXPECT_TRUE(a)		TH_CMP(!!(a), ==, 1, 0)
#define EXPECT_FALSE(a)		TH_CMP(!!(a), ==, 0, 0)
#define EXPECT_STREQ(a, b)	TH_STR(a, 1, b, 0)
#define EXPECT_STRNE(a, b)	TH_STR(a, 0, b, 0)

#define TH_REGISTER(id, title, run) \
	static struct __test_metadata _th_meta_##id = { .name = title, .fn = run }; \
	static void __attribute__((constructor)) _th_register_##id(void) \
	{ \
		th_register(&_th_meta_##id); \
	}

#define TEST(name) \
	static void name(struct __test_metadata *_metadata); \
	TH_REGISTER(name, #name, name) \
	static void name(struct __test_metadata *_metadata)

#define FIXTURE_DATA(f)	struct _th_fixture_##f
#define FIXTURE(f)	FIXTURE_DATA(f)
#define FIXTURE_SETUP(f) \
	static void _th_setup_##f(struct __test_metadata *_metadata, FIXTURE_DATA(f) *self)
#define FIXTURE_TEARDOWN(f) \
	static void _th_teardown_##f(struct __test_metadata *_metadata, FIXTURE_DATA(f) *self)

/* The setup, the test if the setup neither failed nor skipped, the teardown */
#define TEST_F(f, name) \
	static void _th_body_##f##_##name(struct __test_metadata *_metadata, \
					  FIXTURE_DATA(f) *self); \
	static void _th_run_##f##_##name(struct __test_metadata *_metadata) \
	{ \
		static FIXTURE_DATA(f) self; \
		jmp_buf env, *outer = _metadata->env; \
		memset(&self, 0, sizeof(self)); \
		_metadata->env = &env; \
		if (!setjmp(env)) { \
			_th_setup_##f(_metadata, &self); \
			if (!_metadata->failed && !_metadata->skipped) \
				_th_body_##f##_##name(_metadata, &self); \
		} \
		_metadata->env = outer; \
		_th_teardown_##f(_metadata, &self); \
	} \
	TH_REGISTER(f##_##name, #f "." #name, _th_run_##f##_##name) \
	static void _th_body_##f##_##name(struct __test_metadata *_metadata, \
					  FIXTURE_DATA(f) *self)

/*
 * Wait for @pid, a process group leader, killing its group after
 * TH_TIMEOUT_S seconds (a shell a test started with system() goes too):
 * 0, or -1 (errno). A test that does not die within 10 s more (stuck in
 * the kernel) ends the program.
 */
static inline int th_wait(pid_t pid, int *status, int *timed_out)
{
	struct timespec nap = { 0, 5 * 1000 * 1000 }, start, now;
	long long limit_ns = TH_TIMEOUT_S * 1000000000LL, ns;
	pid_t got;

	*timed_out = 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		got = waitpid(pid, status, WNOHANG);
		if (got == pid)
			return 0;
		if (got < 0)
			return -1;
		clock_gettime(CLOCK_MONOTONIC, &now);
		ns = (now.tv_sec - start.tv_sec) * 1000000000LL + now.tv_nsec - start.tv_nsec;
		if (!*timed_out && ns >= limit_ns) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			*timed_out = 1;
		}
		if (*timed_out && ns >= limit_ns + 10 * 1000000000LL) {
			printf("Bail out! a test killed at its timeout did not die in 10 s\n");
			exit(1);
		}
		nanosleep(&nap, NULL);
	}
}

/* One test in a child process; its result from the shared metadata */
static inline int th_run_one(struct __test_metadata *t, int n)
{
	struct __test_metadata *m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE,
					 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status, failed, timed_out;
	pid_t pid;

	if (m == MAP_FAILED) {
		printf("Bail out! mmap: %m\n");
		exit(1);
	}
	*m = *t;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("Bail out! fork: %m\n");
		exit(1);
	}
	if (!pid) {
		jmp_buf env;

		setpgid(0, 0);	/* a group of its own, for th_wait() */
		m->env = &env;
		if (!setjmp(env))
			m->fn(m);
		m->done = 1;
		/* exit(), not _exit(): LeakSanitizer checks at exit (status 23) */
		exit(m->failed ? 1 : m->skipped ? TH_SKIP_EXIT : 0);
	}
	/*
	 * The parent keeps the time: a test that turned an alarm of its own
	 * off, or blocks every signal, is still stopped.
	 */
	if (th_wait(pid, &status, &timed_out)) {
		printf("Bail out! waitpid: %m\n");
		exit(1);
	}
	/* passed or skipped only if it ran to its end and exited as it said */
	failed = m->failed || !m->done || !WIFEXITED(status) ||
		 WEXITSTATUS(status) != (m->skipped ? TH_SKIP_EXIT : 0);
	if (!m->done && WIFEXITED(status))
		printf("# %s: exited with status %d before its end\n", t->name,
		       WEXITSTATUS(status));
	if (timed_out && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		printf("# %s: killed after the %d s timeout\n", t->name, TH_TIMEOUT_S);
	else if (WIFSIGNALED(status))
		printf("# %s: killed by signal %d\n", t->name, WTERMSIG(status));
	if (failed)
		printf("not ok %d %s\n", n, t->name);
	else if (m->skipped)
		printf("ok %d %s # SKIP %s\n", n, t->name,
		       m->skip_reason[0] ? m->skip_reason : "(no reason given)");
	else
		printf("ok %d %s\n", n, t->name);
	munmap(m, sizeof(*m));
	return failed;
}

static inline int th_main(void)
{
	struct __test_metadata *t;
	int n = 0, failed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (t = th_first; t; t = t->next)
		n++;
	printf("TAP version 13\n1..%d\n", n);
	n = 0;
	for (t = th_first; t; t = t->next)
		failed += th_run_one(t, ++n);
	printf("# %d of %d tests failed\n", failed, n);
	return failed ? 1 : 0;
}

#define TEST_HARNESS_MAIN \
	int main(void) \
	{ \
		return th_main(); \
	}

#endif
