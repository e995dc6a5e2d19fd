// SPDX-License-Identifier: GPL-2.0
/*
 * Does a dynamically linked program's fork() work in the guest? The
 * guest's ld.so and libc.so.6 must come from one glibc build: with a
 * loader of another build, every fork() child looped in glibc's
 * reclaim_stacks() for ever (tests/mkinitramfs.sh). Linked like fserrd
 * and fserrctl, against the initramfs's libc.so.6. TAP: 3 children must
 * exit with their status within 5 s each.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	struct timespec nap = { 0, 10 * 1000 * 1000 };
	int i, n, status, failed = 0;
	pid_t pid;

	printf("1..3\n");
	for (i = 1; i <= 3; i++) {
		pid = fork();
		if (pid == 0)
			_exit(40 + i);
		for (n = 0; pid > 0 && n < 500; n++) {
			if (waitpid(pid, &status, WNOHANG) == pid)
				break;
			nanosleep(&nap, NULL);
		}
		if (pid > 0 && n < 500 && WIFEXITED(status) && WEXITSTATUS(status) == 40 + i) {
			printf("ok %d fork() child %d exited with its status\n", i, i);
		} else {
			printf("not ok %d fork() child %d did not exit within 5 s\n", i, i);
			if (pid > 0)
				kill(pid, SIGKILL);
			failed++;
		}
	}
	return failed ? 1 : 0;
}
