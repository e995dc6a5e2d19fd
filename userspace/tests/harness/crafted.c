// SPDX-License-Identifier: GPL-2.0
/*
 * Crafted tests for harness-test.sh: each one's outcome is known, and the
 * script checks that harness.h reports exactly that.
 */
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>
#include "../harness.h"

static int log_ran;

TEST(passes)
{
	EXPECT_EQ(1, 1);
	EXPECT_STREQ("a", "a");
	EXPECT_NE(NULL, "x");
	ASSERT_TRUE(1);
}

TEST(expect_fails_and_goes_on)
{
	EXPECT_EQ(1, 2) TH_LOG("handler of a failed EXPECT");
	EXPECT_EQ(3, 3) TH_LOG("handler of a passed EXPECT: must not print");
	TH_LOG("after the failed EXPECT");
}

TEST(assert_ends_the_test)
{
	ASSERT_STREQ("a", "b") {
		TH_LOG("handler block of a failed ASSERT");
	}
	TH_LOG("after the failed ASSERT: must not print");
}

TEST(skipped)
{
	SKIP(return, "a reason");
	TH_LOG("after SKIP: must not print");
}

TEST(killed)
{
	raise(SIGSEGV);
}

TEST(negative_values_printed)
{
	EXPECT_EQ(-22, -5);
}

FIXTURE(fx) {
	int set_up;
};

FIXTURE_SETUP(fx)
{
	self->set_up = 1;
}

FIXTURE_TEARDOWN(fx)
{
	TH_LOG("teardown ran, set_up=%d", self->set_up);
}

TEST_F(fx, fixture_passes)
{
	ASSERT_EQ(1, self->set_up);
}

TEST_F(fx, fixture_assert_still_tears_down)
{
	ASSERT_EQ(0, self->set_up);
	TH_LOG("after the failed ASSERT in a fixture: must not print");
}

TEST(log_handler_only_on_failure)
{
	EXPECT_TRUE(1) log_ran = 1;
	EXPECT_EQ(0, log_ran);
}

static void helper_asserts(struct __test_metadata *_metadata)
{
	ASSERT_EQ(1, 0);
	TH_LOG("after the failed ASSERT in a helper: must not print");
}

TEST(assert_in_a_helper)
{
	helper_asserts(_metadata);
	TH_LOG("after the helper whose ASSERT failed: must not print");
}

TEST(exits_midway)
{
	exit(4);
}

TEST(assert_stops_an_unbraced_loop)
{
	int i;

	for (i = 0; i < 3; i++)
		ASSERT_NE(1, i) TH_LOG("loop stopped at %d", i);
	TH_LOG("the loop went on past its failed ASSERT: must not print");
}

FIXTURE(skipper) {
	int x;
};

FIXTURE_SETUP(skipper)
{
	SKIP(return, "skipped in the setup");
}

FIXTURE_TEARDOWN(skipper)
{
	TH_LOG("skipper teardown ran");
}

TEST_F(skipper, body_must_not_run)
{
	TH_LOG("the body of a test whose setup skipped: must not print");
}

/* A break in a failed ASSERT's handler leaves the handler, not the check */
TEST(break_in_an_assert_handler)
{
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_NE(1, i) {
			TH_LOG("handler with a break at %d", i);
			break;
		}
	}
	TH_LOG("went on after a failed ASSERT whose handler breaks: must not print");
}

/* A test that turns its alarm off and hangs is still stopped, by the parent */
TEST(hangs_without_its_alarm)
{
	alarm(0);
	signal(SIGALRM, SIG_IGN);
	pause();
}

TEST_HARNESS_MAIN
